/**
 * The upstream stream ended cleanly but before its end marker (no finish reason / no
 * message_stop): the answer is truncated. Classified as `network` (retryable before the first chunk).
 */
export class IncompleteStreamError extends Error {
  constructor(readonly provider: string) {
    super(`The ${provider} stream ended before completion`);
    this.name = 'IncompleteStreamError';
  }
}
