/**
 * Largest piece of an event-stream body handed to the openai SDK. Its SSE splitter (openai 6.x
 * `iterSSEChunks`) copies everything still buffered after each event it cuts off: a network read
 * holding n events costs O(n²) bytes copied (a 200-token answer read at once: ~3 MB copied and
 * allocated instead of 30 KB). In pieces of at most this size the copies stay below one piece per
 * event. docs/llm-providers.md "Reading event streams".
 */
export const EVENT_STREAM_PIECE_BYTES = 1024;

type Fetch = typeof fetch;

/**
 * `fetch` for the openai SDK (ClientOptions.fetch): successful `text/event-stream` responses have
 * their body read in pieces of at most `pieceBytes` (views of the bytes received, never copies);
 * every other response is returned as fetch answered it. Bytes, order, end, errors and cancellation
 * of the body are the original's, so the SDK parses, retries and aborts exactly as before.
 */
export function boundedEventStreamFetch(inner: Fetch = fetch, pieceBytes = EVENT_STREAM_PIECE_BYTES): Fetch {
  if (!Number.isInteger(pieceBytes) || pieceBytes < 1) throw new RangeError(`pieceBytes must be a positive integer, got ${pieceBytes}`);
  return async (input, init) => {
    const response = await inner(input, init);
    if (!response.ok || !response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
    return new Response(ReadableStream.from(inPieces(response.body, pieceBytes)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

async function* inPieces(body: ReadableStream<Uint8Array>, pieceBytes: number): AsyncGenerator<Uint8Array> {
  for await (const chunk of body) {
    if (chunk.byteLength <= pieceBytes) {
      yield chunk;
      continue;
    }
    for (let start = 0; start < chunk.byteLength; start += pieceBytes) yield chunk.subarray(start, start + pieceBytes);
  }
}
