import { request } from 'undici';
import type { Dispatcher } from 'undici';

type Fetch = typeof fetch;

export interface UndiciRequestFetchOptions {
  /** Where the requests go (tests: an Agent of their own). Default: undici's global Agent (keep-alive, no limit per origin). */
  dispatcher?: Dispatcher;
  /** What a request this fetch does not handle goes to (a FormData or stream body, a Request object). Default: Node's fetch. */
  fallback?: Fetch;
}

/**
 * `fetch` for the SDKs (ClientOptions.fetch) on undici's `request` instead of Node's WHATWG `fetch`.
 * Both are undici underneath; `fetch` adds, per request, a Request object, a web stream for the body
 * sent, the spec's fetch algorithm (a dozen promise hops) and AbortSignal plumbing: ~0.3 ms of CPU
 * before the request leaves, the largest part of the time between a question and its upstream
 * request after the service's own setup (docs/benchmarks.md, round five).
 *
 * What the SDKs see stays what `fetch` gives them: a `Response` with status, headers and the body as
 * a web stream; a stopped request rejects with its signal's reason (an abort before the headers, and
 * the body's read after them); a failure to connect rejects `TypeError: fetch failed` and a body
 * cut off errors `TypeError: terminated`, each with undici's error as its cause (what
 * LlmErrorClassifier and the SDKs' retry logic read). Differences, none of which the providers use:
 * no redirects are followed (a 3xx is returned as it is), no `accept-encoding` is added and nothing
 * is decompressed (the upstream answers uncompressed), and requests with a body other than a string
 * or bytes go to `fallback`.
 */
export function undiciRequestFetch(options: UndiciRequestFetchOptions = {}): Fetch {
  const { dispatcher, fallback = fetch } = options;
  return async (input, init) => {
    const body = init?.body;
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : null;
    if (url === null || !(body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array)) {
      return fallback(input, init);
    }
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(url, {
        method: (init?.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod,
        headers: headersOf(init?.headers),
        body: body ?? undefined,
        signal,
        ...(dispatcher ? { dispatcher } : {}),
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new TypeError('fetch failed', { cause: error });
    }
    const { statusCode, headers, body: received } = answer;
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(headers)) {
      if (Array.isArray(value)) for (const one of value) responseHeaders.append(name, one);
      else if (value !== undefined) responseHeaders.append(name, value);
    }
    if (statusCode === 204 || statusCode === 205 || statusCode === 304 || init?.method?.toUpperCase() === 'HEAD') {
      received.resume();
      return new Response(null, { status: statusCode, headers: responseHeaders });
    }
    return new Response(ReadableStream.from(bytesOf(received, signal)), { status: statusCode, headers: responseHeaders });
  };
}

/** The body's chunks; an error as `fetch` reports it (the signal's reason when stopped, else `terminated`). */
async function* bytesOf(received: Dispatcher.ResponseData['body'], signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of received) yield chunk as Buffer;
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new TypeError('terminated', { cause: error });
  }
}

/** The request's headers as undici takes them (what the SDKs pass: a Headers, an object or pairs). */
function headersOf(init: RequestInit['headers']): Record<string, string> | undefined {
  if (init === undefined) return undefined;
  const headers: Record<string, string> = {};
  (init instanceof Headers ? init : new Headers(init)).forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}
