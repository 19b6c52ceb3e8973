import { AiEventLogger } from '../observability/ai-event.logger';
import { Logger } from '../observability/logger';
import { classifyLLMError, ClassifiedLlmError } from './classify-llm-error';
import { isAbortError, LlmAbortError } from './llm-abort.error';
import { LlmErrorLocale } from './llm-error.messages';
import { LlmCallOptions, LlmCompletion, LlmProvider } from './llm-provider';
import { LlmProviderError } from './llm-provider.error';
import { LlmMessage, LlmToolDefinition } from './llm-message';
import { LlmStreamChunk } from './llm-stream-chunk';
import { abortableSleep, DEFAULT_RETRY_BACKOFF, RetryBackoffOptions, retryDelayMs } from './retry-backoff';

export interface RetryingLlmProviderOptions {
  /** AI_MAX_RETRIES: retries after the first attempt (0 = none). */
  maxRetries: number;
  locale?: LlmErrorLocale;
  backoff?: Partial<RetryBackoffOptions>;
  events?: AiEventLogger;
}

const logger = new Logger('llm');

/**
 * The service's retry policy around a model-backed provider (PROTOCOL.md §6): rate limits, 5xx
 * (Anthropic 529 included), timeouts and network errors are retried with backoff and jitter —
 * only BEFORE the first chunk was handed to the caller, never after, since a token already shown
 * cannot be taken back. Retry-After is honoured up to 10 s. Final failures are logged once
 * (llm_error) and thrown as LlmProviderError (an AppError with a PROTOCOL.md code); aborts are
 * thrown as LlmAbortError, promptly, including during a backoff wait.
 */
export class RetryingLlmProvider implements LlmProvider {
  private readonly maxRetries: number;
  private readonly locale: LlmErrorLocale;
  private readonly backoff: RetryBackoffOptions;
  private readonly events: AiEventLogger;

  constructor(
    readonly inner: LlmProvider,
    options: RetryingLlmProviderOptions,
  ) {
    this.maxRetries = Math.max(0, options.maxRetries);
    this.locale = options.locale ?? 'en';
    this.backoff = { ...DEFAULT_RETRY_BACKOFF, ...options.backoff };
    this.events = options.events ?? new AiEventLogger('llm');
  }

  get providerName(): string {
    return this.inner.providerName;
  }

  get model(): string {
    return this.inner.model;
  }

  get offline(): boolean {
    return this.inner.offline;
  }

  async complete(messages: LlmMessage[], tools: LlmToolDefinition[] = [], options: LlmCallOptions = {}): Promise<LlmCompletion> {
    const model = options.model ?? this.model;
    for (let attempt = 0; ; attempt++) {
      const startedAt = Date.now();
      this.events.debug('llm_call_start', { provider: this.providerName, model, mode: 'complete', attempt, messageCount: messages.length, toolCount: tools.length });
      try {
        const completion = await this.inner.complete(messages, tools, options);
        this.events.debug('llm_call_done', { provider: this.providerName, model, mode: 'complete', durationMs: Date.now() - startedAt, ...completion.usage });
        return completion;
      } catch (error) {
        await this.handleFailure(error, attempt, false, model, options.signal);
      }
    }
  }

  /**
   * A hand-written iterator rather than an async generator: after the first chunk every next() is
   * a direct call to the adapter's iterator, so the policy costs one async hop per chunk, not two.
   */
  stream(messages: LlmMessage[], tools: LlmToolDefinition[] = [], options: LlmCallOptions = {}): AsyncIterable<LlmStreamChunk> {
    const model = options.model ?? this.model;
    let inner: AsyncIterator<LlmStreamChunk> | null = null;
    let attempt = 0;
    let emitted = false;
    let finished = false;
    let startedAt = 0;
    const open = (): AsyncIterator<LlmStreamChunk> => {
      startedAt = Date.now();
      this.events.debug('llm_call_start', { provider: this.providerName, model, mode: 'stream', attempt, messageCount: messages.length, toolCount: tools.length });
      return this.inner.stream(messages, tools, options)[Symbol.asyncIterator]();
    };
    const iterator: AsyncIterator<LlmStreamChunk> = {
      next: async (): Promise<IteratorResult<LlmStreamChunk>> => {
        while (!finished) {
          inner ??= open();
          try {
            const result = await inner.next();
            if (result.done) {
              finished = true;
              return result;
            }
            emitted = true;
            if (result.value.type === 'usage') {
              this.events.debug('llm_call_done', { provider: this.providerName, model, mode: 'stream', durationMs: Date.now() - startedAt, ...result.value.usage });
            }
            return result;
          } catch (error) {
            inner = null;
            try {
              await this.handleFailure(error, attempt, emitted, model, options.signal);
            } catch (final) {
              finished = true;
              throw final;
            }
            attempt++;
          }
        }
        return { done: true, value: undefined };
      },
      return: async (): Promise<IteratorResult<LlmStreamChunk>> => {
        finished = true;
        const current = inner;
        inner = null;
        // Closing the adapter's iterator closes the upstream connection.
        await current?.return?.();
        return { done: true, value: undefined };
      },
    };
    return { [Symbol.asyncIterator]: () => iterator };
  }

  /** Returns after the backoff wait when the attempt may be retried; throws otherwise. */
  private async handleFailure(error: unknown, attempt: number, emitted: boolean, model: string, signal: AbortSignal | undefined): Promise<void> {
    if (isAbortError(error) || signal?.aborted) {
      throw error instanceof LlmAbortError ? error : new LlmAbortError(undefined, { cause: error });
    }
    const classified = classifyLLMError(error, this.locale, this.providerName);
    const delayMs = !emitted && classified.retryable && attempt < this.maxRetries ? retryDelayMs(attempt, classified.retryAfterMs, this.backoff) : null;
    if (delayMs === null) throw this.fail(classified, error, attempt, emitted, model);
    logger.warn('llm_retry', {
      provider: this.providerName,
      model,
      code: classified.code,
      statusCode: classified.statusCode,
      attempt: attempt + 1,
      maxRetries: this.maxRetries,
      delayMs,
    });
    await abortableSleep(delayMs, signal);
  }

  private fail(classified: ClassifiedLlmError, error: unknown, attempt: number, emitted: boolean, model: string): LlmProviderError {
    this.events.llmError({
      provider: classified.provider,
      model,
      code: classified.code,
      retryable: classified.retryable,
      statusCode: classified.statusCode,
      attempt,
      afterFirstChunk: emitted,
      error,
    });
    return error instanceof LlmProviderError ? error : new LlmProviderError(classified, error);
  }
}
