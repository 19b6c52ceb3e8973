import { performance } from 'node:perf_hooks';
import type { Locale } from '../config/app-config';
import type { ProviderPricing } from '../config/provider-registry';
import { AiEventLogger } from '../observability/ai-event.logger';
import { Logger } from '../observability/logger';
import type { ClassifiedLlmError } from './classified-llm-error';
import { classifyLLMError } from './llm-error.classifier';
import { isAbortError, LlmAbortError } from './llm-abort.error';
import { LlmCallLabels, LlmCallObserver, LlmCallOutcome } from './llm-call.observer';
import { LlmCallOptions, LlmCompletion, LlmProvider } from './llm-provider';
import { LlmProviderError } from './llm-provider.error';
import { LlmMessage, LlmToolDefinition } from '../conversation/llm-message';
import { LlmStreamChunk } from './llm-stream-chunk';
import { abortableSleep, DEFAULT_RETRY_BACKOFF, RetryBackoffOptions, retryDelayMs } from './retry-backoff';

export interface RetryingLlmProviderOptions {
  /** AI_MAX_RETRIES: retries after the first attempt (0 = none). */
  maxRetries: number;
  locale?: Locale;
  backoff?: Partial<RetryBackoffOptions>;
  events?: AiEventLogger;
  /** Latency and upstream errors of each call (metrics). */
  observer?: LlmCallObserver;
  /** Never logged, even inside an upstream's error message (the adapter's API key). */
  secrets?: readonly string[];
  /** What its calls cost, when the builder knows it (LlmProvider.pricing). */
  pricing?: ProviderPricing | null;
}

const logger = new Logger('llm');
const NO_CALL_TIMER = { firstChunk: () => undefined, end: () => undefined };

/**
 * The service's retry policy around a model-backed provider: rate limits, 5xx (Anthropic 529
 * included), timeouts and network errors are retried with backoff and jitter — only BEFORE the
 * first chunk was handed to the caller, never after, since a token already shown cannot be taken
 * back. Retry-After is honoured up to 10 s. Final failures are logged once (llm_error) and thrown
 * as LlmProviderError (an AppError with a protocol error code); aborts are thrown as
 * LlmAbortError, promptly, including during a backoff wait.
 */
export class RetryingLlmProvider implements LlmProvider {
  private readonly maxRetries: number;
  private readonly locale: Locale;
  private readonly backoff: RetryBackoffOptions;
  private readonly events: AiEventLogger;
  private readonly observer: LlmCallObserver | undefined;
  private readonly secrets: readonly string[];
  readonly pricing: ProviderPricing | null | undefined;

  constructor(
    readonly inner: LlmProvider,
    options: RetryingLlmProviderOptions,
  ) {
    this.maxRetries = Math.max(0, options.maxRetries);
    this.locale = options.locale ?? 'en';
    this.backoff = { ...DEFAULT_RETRY_BACKOFF, ...options.backoff };
    this.events = options.events ?? new AiEventLogger('llm');
    this.observer = options.observer;
    this.secrets = options.secrets ?? [];
    this.pricing = options.pricing;
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

  async complete(
    messages: LlmMessage[],
    tools: LlmToolDefinition[] = [],
    options: LlmCallOptions = {},
  ): Promise<LlmCompletion> {
    const model = options.model ?? this.model;
    const call = this.callTimer(model);
    for (let attempt = 0; ; attempt++) {
      const startedAt = Date.now();
      this.events.debug('llm_call_start', {
        provider: this.providerName,
        model,
        mode: 'complete',
        attempt,
        messageCount: messages.length,
        toolCount: tools.length,
      });
      try {
        const completion = await this.inner.complete(messages, tools, options);
        this.events.debug('llm_call_done', {
          provider: this.providerName,
          model,
          mode: 'complete',
          durationMs: Date.now() - startedAt,
          ...completion.usage,
        });
        call.end('ok');
        return completion;
      } catch (error) {
        try {
          await this.handleFailure(error, attempt, false, model, options);
        } catch (final) {
          call.end(isAbortError(final) ? 'aborted' : 'error');
          throw final;
        }
      }
    }
  }

  /**
   * A hand-written iterator rather than an async generator: after the first chunk every next() is
   * a direct call to the adapter's iterator, so the policy costs one async hop per chunk, not two.
   */
  stream(
    messages: LlmMessage[],
    tools: LlmToolDefinition[] = [],
    options: LlmCallOptions = {},
  ): AsyncIterable<LlmStreamChunk> {
    const model = options.model ?? this.model;
    const call = this.callTimer(model);
    let inner: AsyncIterator<LlmStreamChunk> | null = null;
    let attempt = 0;
    let emitted = false;
    let finished = false;
    let startedAt = 0;
    const open = (): AsyncIterator<LlmStreamChunk> => {
      startedAt = Date.now();
      this.events.debug('llm_call_start', {
        provider: this.providerName,
        model,
        mode: 'stream',
        attempt,
        messageCount: messages.length,
        toolCount: tools.length,
      });
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
              call.end('ok');
              return result;
            }
            if (!emitted) call.firstChunk();
            emitted = true;
            if (result.value.type === 'usage') {
              this.events.debug('llm_call_done', {
                provider: this.providerName,
                model,
                mode: 'stream',
                durationMs: Date.now() - startedAt,
                ...result.value.usage,
              });
            }
            return result;
          } catch (error) {
            inner = null;
            try {
              await this.handleFailure(error, attempt, emitted, model, options);
            } catch (final) {
              finished = true;
              call.end(isAbortError(final) ? 'aborted' : 'error');
              throw final;
            }
            attempt++;
          }
        }
        return { done: true, value: undefined };
      },
      return: async (): Promise<IteratorResult<LlmStreamChunk>> => {
        // The caller stopped reading before the end.
        if (!finished) call.end('aborted');
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
  private async handleFailure(
    error: unknown,
    attempt: number,
    emitted: boolean,
    model: string,
    options: LlmCallOptions,
  ): Promise<void> {
    const { signal, threadId } = options;
    if (isAbortError(error) || signal?.aborted) {
      throw error instanceof LlmAbortError ? error : new LlmAbortError(undefined, { cause: error });
    }
    const classified = classifyLLMError(error, this.locale, this.providerName);
    const delayMs =
      !emitted && classified.retryable && attempt < this.maxRetries
        ? retryDelayMs(attempt, classified.retryAfterMs, this.backoff)
        : null;
    this.observer?.upstreamError({ provider: this.providerName, model }, classified.code, delayMs !== null);
    if (delayMs === null) throw this.fail(classified, error, attempt, emitted, model, threadId);
    logger.warn('llm_retry', {
      provider: this.providerName,
      model,
      ...(threadId ? { threadId } : {}),
      code: classified.code,
      statusCode: classified.statusCode,
      attempt: attempt + 1,
      maxRetries: this.maxRetries,
      delayMs,
    });
    await abortableSleep(delayMs, signal);
  }

  /** Reports one call's first chunk and end (once) to the observer; a no-op without one. */
  private callTimer(model: string): { firstChunk(): void; end(outcome: LlmCallOutcome): void } {
    const observer = this.observer;
    if (!observer) return NO_CALL_TIMER;
    const labels: LlmCallLabels = { provider: this.providerName, model };
    const startedAt = performance.now();
    let ended = false;
    const seconds = () => (performance.now() - startedAt) / 1000;
    return {
      firstChunk: () => observer.firstChunk(labels, seconds()),
      end: (outcome) => {
        if (ended) return;
        ended = true;
        observer.ended(labels, outcome, seconds());
      },
    };
  }

  private fail(
    classified: ClassifiedLlmError,
    error: unknown,
    attempt: number,
    emitted: boolean,
    model: string,
    threadId: string | undefined,
  ): LlmProviderError {
    this.events.llmError({
      provider: classified.provider,
      model,
      ...(threadId ? { threadId } : {}),
      code: classified.code,
      retryable: classified.retryable,
      statusCode: classified.statusCode,
      attempt,
      afterFirstChunk: emitted,
      error,
      secrets: this.secrets,
    });
    return error instanceof LlmProviderError ? error : new LlmProviderError(classified, error);
  }
}
