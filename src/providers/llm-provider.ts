import type { ProviderPricing } from '../config/provider-registry';
import type { GraphRAGContext } from '../conversation/graph-rag-context';
import { LlmAssistantMessage, LlmMessage, LlmToolDefinition } from '../conversation/llm-message';
import { LlmStreamChunk } from './llm-stream-chunk';
import { LlmUsage } from './llm-usage';

export interface LlmCallOptions {
  model?: string;
  maxTokens?: number;
  temperature?: number;
  /** Aborting cancels the upstream HTTP request and ends the stream promptly. */
  signal?: AbortSignal;
  /**
   * The retrieved context this call is grounded on. Model-backed providers ignore it (it is already
   * in the messages); the offline provider builds its extractive answer from it.
   */
  retrievedContext?: GraphRAGContext;
  /** The conversation the call is for: named in its logs (llm_retry, llm_error). */
  threadId?: string;
}

export interface LlmCompletion {
  message: LlmAssistantMessage;
  usage: LlmUsage | null;
  model: string;
  finishReason: string | null;
}

/**
 * One LLM endpoint. Errors are thrown as provider errors; classifyLLMError turns them into
 * protocol error codes. Retryable errors are retried before the first chunk only.
 */
export interface LlmProvider {
  /** Registry name: "deepseek", "openai", "anthropic", "offline", ... */
  readonly providerName: string;
  /** Default model of this provider instance. */
  readonly model: string;
  /** True for the offline provider: no model behind it, no tools, no cost. */
  readonly offline: boolean;
  /**
   * What its calls cost, resolved when it was built (ModelPriceResolver: a configuration's own prices, the
   * model table, the registry entry); null: no price is known; absent: the TokenTracker prices the
   * calls by provider name and model.
   */
  readonly pricing?: ProviderPricing | null;
  complete(messages: LlmMessage[], tools?: LlmToolDefinition[], options?: LlmCallOptions): Promise<LlmCompletion>;
  stream(messages: LlmMessage[], tools?: LlmToolDefinition[], options?: LlmCallOptions): AsyncIterable<LlmStreamChunk>;
}
