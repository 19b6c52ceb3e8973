import { encodedBodyFetch } from './encoded-body.fetch';

describe(encodedBodyFetch.name, () => {
  /** A fetch that records what it was given and answers 204. */
  function recordingFetch(): { fetch: typeof fetch; calls: Array<{ input: unknown; init: RequestInit | undefined }> } {
    const calls: Array<{ input: unknown; init: RequestInit | undefined }> = [];
    const fetch = (async (input: unknown, init?: RequestInit) => {
      calls.push({ input, init });
      return new Response(null, { status: 204 });
    }) as typeof globalThis.fetch;
    return { fetch, calls };
  }

  it('hands a string body over as its UTF-8 bytes (what Node then keeps until the response ends), the rest of the request as it was', async () => {
    const inner = recordingFetch();
    const body = JSON.stringify({ messages: [{ role: 'system', content: '[SYSTEM] ✓ café 😀' }] });
    const signal = new AbortController().signal;
    const response = await encodedBodyFetch(inner.fetch)('http://upstream/v1/chat/completions', { method: 'POST', body, headers: { 'content-type': 'application/json' }, signal });
    expect(response.status).toBe(204);
    const { input, init } = inner.calls[0];
    expect(input).toBe('http://upstream/v1/chat/completions');
    expect(Buffer.isBuffer(init?.body)).toBe(true);
    expect((init?.body as Buffer).toString('utf8')).toBe(body);
    expect(init).toMatchObject({ method: 'POST', headers: { 'content-type': 'application/json' }, signal });
  });

  it('leaves requests without a string body untouched', async () => {
    const inner = recordingFetch();
    const bytes = new Uint8Array([1, 2, 3]);
    const init = { method: 'POST', body: bytes };
    await encodedBodyFetch(inner.fetch)('http://upstream/a', init);
    await encodedBodyFetch(inner.fetch)('http://upstream/b');
    expect(inner.calls[0].init).toBe(init);
    expect(inner.calls[1].init).toBeUndefined();
  });
});
