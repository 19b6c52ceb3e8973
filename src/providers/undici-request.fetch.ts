import { request } from 'undici';
import type { Dispatcher } from 'undici';

type Fetch = typeof fetch;

/**
 * Largest piece of an event-stream body handed to the openai SDK: its SSE splitter (6.x `iterSSEChunks`)
 * copies what is still buffered after each event, so a read holding n events costs O(n²) bytes copied.
 */
export const EVENT_STREAM_PIECE_BYTES = 1024;

export interface UndiciRequestFetchOptions {
  /** Where the requests go (tests: an Agent of their own). Default: undici's global Agent (keep-alive, no limit per origin). */
  dispatcher?: Dispatcher;
  /** What a request this fetch does not handle goes to (a FormData or stream body, a Request object). Default: Node's fetch. */
  fallback?: Fetch;
  /**
   * A successful `text/event-stream` body is handed over in pieces of at most this many bytes (views
   * of the bytes received, never copies). Default: as received.
   */
  eventStreamPieceBytes?: number;
}

/**
 * `fetch` for the SDKs (ClientOptions.fetch) on undici's `request`, without the WHATWG layer of Node's `fetch`
 * (~0.3 ms of CPU per request).
 *
 * Errors are those of `fetch`, which LlmErrorClassifier and the SDKs' retries read: a stop rejects with the
 * signal's reason, a failed connection with `TypeError: fetch failed`, a cut body with `TypeError: terminated`
 * (undici's error as the cause). Unlike `fetch`: no redirects are followed, nothing is decompressed, and bodies
 * other than a string or bytes go to `fallback`.
 */
export function undiciRequestFetch(options: UndiciRequestFetchOptions = {}): Fetch {
  const { dispatcher, fallback = fetch, eventStreamPieceBytes = Infinity } = options;
  if (eventStreamPieceBytes !== Infinity && !(Number.isInteger(eventStreamPieceBytes) && eventStreamPieceBytes >= 1)) {
    throw new RangeError(`eventStreamPieceBytes must be a positive integer, got ${eventStreamPieceBytes}`);
  }
  return async (input, init) => {
    const body = init?.body;
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : null;
    if (
      url === null ||
      !(body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array)
    ) {
      return fallback(input, init);
    }
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const requestHeaders = headersOf(init?.headers);
    // A string body: its bytes, handed over once (handedOnce) with their length.
    let sent: string | Uint8Array | Iterable<Uint8Array> | undefined = body ?? undefined;
    if (typeof body === 'string' && body.length > 0) {
      const bytes = encoder.encode(body);
      sent = handedOnce(bytes);
      requestHeaders['content-length'] = String(bytes.byteLength);
    }
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(url, {
        method: (init?.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod,
        headers: requestHeaders,
        // undici takes an Iterable body (its docs' `body` option); its types leave it out.
        body: sent as Dispatcher.DispatchOptions['body'],
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
    const eventStream =
      statusCode >= 200 &&
      statusCode < 300 &&
      responseHeaders.get('content-type')?.startsWith('text/event-stream') === true;
    const pieceBytes = eventStream ? eventStreamPieceBytes : Infinity;
    return new Response(ReadableStream.from(bytesOf(received, pieceBytes, signal)), {
      status: statusCode,
      headers: responseHeaders,
    });
  };
}

/** The body's chunks (cut in pieces of at most `pieceBytes`); an error as `fetch` reports it (the signal's reason when stopped, else `terminated`). */
async function* bytesOf(
  received: Dispatcher.ResponseData['body'],
  pieceBytes: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of received as AsyncIterable<Buffer>) {
      if (chunk.byteLength <= pieceBytes) {
        yield chunk;
        continue;
      }
      for (let start = 0; start < chunk.byteLength; start += pieceBytes)
        yield chunk.subarray(start, start + pieceBytes);
    }
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new TypeError('terminated', { cause: error });
  }
}

const encoder = new TextEncoder();

/**
 * The body's bytes, handed over once and not kept: undici holds a Buffer body until the response ends (a
 * stream's whole length), but lets a body read from an iterator go once written.
 */
export function handedOnce(bytes: Uint8Array): Iterable<Uint8Array> {
  let held: Uint8Array | null = bytes;
  return {
    [Symbol.iterator]: () => ({
      next: (): IteratorResult<Uint8Array> => {
        if (held === null) return { done: true, value: undefined };
        const value = held;
        held = null;
        return { done: false, value };
      },
    }),
  };
}

/** The request's headers as undici takes them (what the SDKs pass: a Headers, an object or pairs). */
function headersOf(init: RequestInit['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  if (init === undefined) return headers;
  (init instanceof Headers ? init : new Headers(init)).forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}
