/**
 * The upstream stream carried something its protocol does not allow (an SSE event whose data is not
 * JSON: a proxy's garbage, a truncated or corrupted frame). The SDKs throw a bare SyntaxError for
 * it; this names it. Classified as `server_error` (the upstream's fault, retryable before the first
 * chunk), never as `internal`.
 */
export class MalformedStreamError extends Error {
  constructor(
    readonly provider: string,
    options?: { cause?: unknown },
  ) {
    super(`The ${provider} stream sent data that is not valid JSON`, options);
    this.name = 'MalformedStreamError';
  }
}
