type Fetch = typeof fetch;

/**
 * `fetch` for the SDKs (ClientOptions.fetch): a request body given as a string is sent as its UTF-8
 * bytes. Node's fetch keeps a request's body source until its response has been read to the end
 * (to replay it on a redirect): for a JSON string that is up to 2 bytes per character (any
 * character above U+00FF makes V8 store the whole string in two bytes: the `✓` of a thread event is
 * enough), while the bytes it encodes anyway are 1 per ASCII character. With 1,000 streams in
 * flight that was ~55 MB of request bodies kept alive (docs/benchmarks.md, round four). The bytes
 * sent, their length and every header are the same.
 */
export function encodedBodyFetch(inner: Fetch = fetch): Fetch {
  return (input, init) => inner(input, typeof init?.body === 'string' ? { ...init, body: Buffer.from(init.body) } : init);
}
