import type { Locale } from '../config/app-config';
import type { ProviderPricing } from '../config/provider-registry';
import { AiEventLogger } from '../observability/ai-event.logger';
import { AnthropicProvider } from './anthropic.provider';
import { LlmCallObserver } from './llm-call.observer';
import { LlmProvider } from './llm-provider';
import { LlmProviderSelection } from './llm-provider.selector';
import { OfflineLlmProvider } from './offline.provider';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';
import { RetryBackoffOptions } from './retry-backoff';
import { RetryingLlmProvider } from './retrying-llm.provider';

export interface LlmProviderFactoryOptions {
  locale?: Locale;
  /** AI_MAX_RETRIES */
  maxRetries: number;
  backoff?: Partial<RetryBackoffOptions>;
  /** Until response headers (SDK timeout). */
  timeoutMs?: number;
  /** Silence allowed between two stream events (default 90 s). */
  streamIdleTimeoutMs?: number;
  events?: AiEventLogger;
  /** Latency and upstream errors of each call (metrics); the offline provider makes no upstream call. */
  observer?: LlmCallObserver;
  /** The price of the selection's model (ModelPriceResolver), carried by the provider for the TokenTracker. */
  pricing?: ProviderPricing | null;
}

/**
 * Builds the LlmProvider for a selection: the adapter of the entry's type, wrapped in
 * the retry policy; the offline provider when no model is configured.
 */
export function createLlmProvider(selection: LlmProviderSelection, options: LlmProviderFactoryOptions): LlmProvider {
  if (selection.kind === 'offline') return new OfflineLlmProvider({ locale: options.locale });
  const common = {
    baseURL: selection.baseURL,
    model: selection.model,
    timeoutMs: options.timeoutMs,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs,
  };
  const adapter: LlmProvider =
    selection.entry.type === 'anthropic'
      ? new AnthropicProvider({
          ...common,
          providerName: selection.providerName,
          apiKey: selection.apiKey ?? '',
          events: options.events,
        })
      : new OpenAiCompatibleProvider({ ...common, providerName: selection.providerName, apiKey: selection.apiKey });
  return new RetryingLlmProvider(adapter, {
    maxRetries: options.maxRetries,
    locale: options.locale,
    backoff: options.backoff,
    events: options.events,
    observer: options.observer,
    secrets: selection.apiKey ? [selection.apiKey] : [],
    pricing: options.pricing,
  });
}

/** The start-up log fields of a selection: provider, model, base URL host; never the key. */
export function describeLlmSelection(selection: LlmProviderSelection): Record<string, unknown> {
  if (selection.kind === 'offline')
    return { provider: 'offline', model: 'offline', offline: true, source: selection.source };
  let baseUrlHost: string;
  try {
    baseUrlHost = new URL(selection.baseURL).host;
  } catch {
    baseUrlHost = 'invalid';
  }
  return {
    provider: selection.providerName,
    type: selection.entry.type,
    model: selection.model,
    baseUrlHost,
    offline: false,
    source: selection.source,
    ...(selection.detectedBy ? { detectedBy: selection.detectedBy } : {}),
  };
}
