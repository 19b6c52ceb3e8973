import { boundedEventStreamFetch } from './bounded-event-stream.fetch';

const encoder = new TextEncoder();

function eventStream(chunks: Uint8Array[], onCancel?: (reason: unknown) => void): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index < chunks.length) controller.enqueue(chunks[index++]);
      else controller.close();
    },
    cancel: onCancel,
  });
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const pieces: Uint8Array[] = [];
  for await (const piece of body) pieces.push(piece);
  return pieces;
}

const sse = (events: number) => encoder.encode(Array.from({ length: events }, (_, i) => `data: {"i":${i},"text":"é${'x'.repeat(40)}"}\n\n`).join(''));

describe(boundedEventStreamFetch.name, () => {
  it('hands a large event-stream read over in pieces of at most the bound, bytes and order unchanged', async () => {
    const big = sse(200);
    const small = encoder.encode('data: [DONE]\n\n');
    const fetchStub = async () => new Response(eventStream([big, small]), { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-request-id': 'r1' } });
    const response = await boundedEventStreamFetch(fetchStub as typeof fetch, 1000)('http://upstream/v1/chat/completions');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('r1');
    const pieces = await readAll(response.body as ReadableStream<Uint8Array>);
    expect(Math.max(...pieces.map((piece) => piece.byteLength))).toBeLessThanOrEqual(1000);
    expect(pieces.length).toBe(Math.ceil(big.byteLength / 1000) + 1);
    expect(Buffer.concat(pieces)).toEqual(Buffer.concat([big, small]));
  });

  it('returns every other response as fetch answered it', async () => {
    const json = new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
    const refused = new Response('data: nope\n\n', { status: 429, headers: { 'content-type': 'text/event-stream' } });
    const answers = [json, refused];
    const fetchStub = async () => answers.shift() as Response;
    const bounded = boundedEventStreamFetch(fetchStub as typeof fetch, 4);
    expect(await bounded('http://upstream')).toBe(json);
    expect(await bounded('http://upstream')).toBe(refused);
  });

  it('passes the request through and cancels the upstream body when the reader stops', async () => {
    const cancelled: unknown[] = [];
    const seen: Array<[unknown, RequestInit | undefined]> = [];
    const fetchStub = async (input: unknown, init?: RequestInit) => {
      seen.push([input, init]);
      return new Response(eventStream([sse(50), sse(50)], (reason) => cancelled.push(reason)), { headers: { 'content-type': 'text/event-stream' } });
    };
    const init = { method: 'POST', body: '{}' };
    const response = await boundedEventStreamFetch(fetchStub as typeof fetch, 100)('http://upstream/x', init);
    expect(seen).toEqual([['http://upstream/x', init]]);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel('stop');
    expect(cancelled).toHaveLength(1);
  });

  it('errors its body when the upstream body errors', async () => {
    const failure = new Error('socket hang up');
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(sse(20));
        } else {
          controller.error(failure);
        }
      },
    });
    const fetchStub = async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    const response = await boundedEventStreamFetch(fetchStub as typeof fetch, 64)('http://upstream');
    await expect(readAll(response.body as ReadableStream<Uint8Array>)).rejects.toBe(failure);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => boundedEventStreamFetch(fetch, 0)).toThrow(RangeError);
  });
});
