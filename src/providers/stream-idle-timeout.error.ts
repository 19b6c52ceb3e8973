/**
 * The upstream stream delivered no event for longer than the idle timeout: the request was
 * cancelled. Classified as `timeout` (retryable before the first chunk).
 */
export class StreamIdleTimeoutError extends Error {
  constructor(
    readonly provider: string,
    readonly idleTimeoutMs: number,
  ) {
    super(`The ${provider} stream sent nothing for ${idleTimeoutMs} ms`);
    this.name = 'StreamIdleTimeoutError';
  }
}
