import { AppError } from '../errors/app-error';
import { isAbortError } from '../providers/llm-abort.error';
import { abortableSleep, DEFAULT_RETRY_BACKOFF, retryDelayMs, RetryBackoffOptions } from '../providers/retry-backoff';
import { EmbeddingProvider } from './embedding-provider';
import { describeUpstreamError, upstreamErrorText } from '../observability/upstream-error.masker';

export interface EmbeddingBatchRunnerOptions {
  /** Retries of a retryable failure (rate limit, 5xx, timeout, network) on top of the SDK's own. Default 2. */
  maxRetries?: number;
  backoff?: RetryBackoffOptions;
  /** Awaited before every upstream call (rate limiting between calls: the CLI's `delay=`). */
  beforeCall?: (signal?: AbortSignal) => Promise<void>;
}

/** One text's outcome: its vector, or why it has none. */
export type EmbeddingOutcome = { vector: Float32Array } | { error: string };

/**
 * Embeds one batch of texts so that one text's failure never costs the others their vector:
 * a retryable failure (AppError.retryable) is retried with backoff, then fails the whole batch (the
 * provider is down: splitting would only multiply calls); a non-retryable one (for example one
 * input the model refuses) splits the batch in halves, down to the single text that fails.
 * An abort is not a failure: it propagates.
 */
export class EmbeddingBatchRunner {
  /** Upstream calls made so far (retries and halves included). */
  calls = 0;
  private readonly maxRetries: number;
  private readonly backoff: RetryBackoffOptions;

  constructor(
    private readonly provider: EmbeddingProvider,
    private readonly options: EmbeddingBatchRunnerOptions = {},
  ) {
    this.maxRetries = options.maxRetries ?? 2;
    this.backoff = options.backoff ?? DEFAULT_RETRY_BACKOFF;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<EmbeddingOutcome[]> {
    if (texts.length === 0) return [];
    try {
      const vectors = await this.withRetries(texts, signal);
      return vectors.map((vector) => ({ vector }));
    } catch (error) {
      if (isAbortError(error)) throw error;
      if (isRetryable(error) || texts.length === 1) return texts.map(() => ({ error: describe(error) }));
      const middle = Math.ceil(texts.length / 2);
      return [
        ...(await this.embed(texts.slice(0, middle), signal)),
        ...(await this.embed(texts.slice(middle), signal)),
      ];
    }
  }

  private async withRetries(texts: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await this.options.beforeCall?.(signal);
        this.calls += 1;
        const vectors = await this.provider.embed(texts, signal);
        if (vectors.length !== texts.length)
          throw new AppError('server_error', `Expected ${texts.length} vectors, got ${vectors.length}`);
        return vectors;
      } catch (error) {
        if (isAbortError(error) || !isRetryable(error) || attempt >= this.maxRetries) throw error;
        const retryAfter = (error as { retryAfterMs?: number | null }).retryAfterMs ?? null;
        const delay = retryDelayMs(attempt, retryAfter, this.backoff);
        if (delay === null) throw error;
        await abortableSleep(delay, signal);
      }
    }
  }
}

function isRetryable(error: unknown): boolean {
  return error instanceof AppError && error.retryable;
}

/** For logs and reports: the error's code and class, never its inputs. */
function describe(error: unknown): string {
  if (error instanceof AppError) return `${error.code}: ${upstreamErrorText(error)}`;
  return describeUpstreamError(error);
}
