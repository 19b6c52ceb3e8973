import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages/messages';
import { AiEventLogger } from '../observability/ai-event.logger';
import { convertAnthropicResponse, convertMessagesToAnthropic, convertToolsToAnthropic } from './anthropic-message.converter';
import { AnthropicStreamAssembler } from './anthropic-stream.assembler';
import { isAbortError, LlmAbortError, throwIfAborted } from './llm-abort.error';
import { LlmCallOptions, LlmCompletion, LlmProvider } from './llm-provider';
import { LlmMessage, LlmToolDefinition } from './llm-message';
import { LlmStreamChunk } from './llm-stream-chunk';

export interface AnthropicProviderOptions {
  providerName?: string;
  baseURL: string;
  apiKey: string;
  model: string;
  /** Time allowed until the response headers arrive; streaming bodies are not cut. */
  timeoutMs?: number;
  events?: AiEventLogger;
}

/** max_tokens is mandatory for Anthropic (seed 000: 4096 unless options.maxTokens). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
const DEFAULT_TIMEOUT_MS = 120_000;

function rethrow(error: unknown, signal: AbortSignal | undefined): never {
  if (signal?.aborted || isAbortError(error)) throw new LlmAbortError(undefined, { cause: error });
  throw error;
}

/**
 * Anthropic Messages through @anthropic-ai/sdk (SDK retries off; RetryingLlmProvider decides).
 * Messages are converted from our OpenAI shape (anthropic-message.converter.ts); the stable system
 * prompt marked `cacheBreakpoint` gets a cache_control breakpoint so the prefix is cached.
 */
export class AnthropicProvider implements LlmProvider {
  readonly providerName: string;
  readonly model: string;
  readonly offline = false;
  private readonly client: Anthropic;
  private readonly events: AiEventLogger;

  constructor(options: AnthropicProviderOptions) {
    this.providerName = options.providerName ?? 'anthropic';
    this.model = options.model;
    this.events = options.events ?? new AiEventLogger('anthropic');
    this.client = new Anthropic({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      maxRetries: 0,
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
  }

  async complete(messages: LlmMessage[], tools: LlmToolDefinition[] = [], options: LlmCallOptions = {}): Promise<LlmCompletion> {
    throwIfAborted(options.signal);
    try {
      const response = await this.client.messages.create({ ...this.body(messages, tools, options), stream: false }, { signal: options.signal });
      return convertAnthropicResponse(response);
    } catch (error) {
      rethrow(error, options.signal);
    }
  }

  async *stream(messages: LlmMessage[], tools: LlmToolDefinition[] = [], options: LlmCallOptions = {}): AsyncGenerator<LlmStreamChunk> {
    const signal = options.signal;
    throwIfAborted(signal);
    const assembler = new AnthropicStreamAssembler();
    const out: LlmStreamChunk[] = [];
    try {
      const upstream = await this.client.messages.create({ ...this.body(messages, tools, options), stream: true }, { signal });
      for await (const event of upstream) {
        assembler.push(event, out);
        if (out.length === 0) continue;
        for (const item of out) yield item;
        out.length = 0;
      }
    } catch (error) {
      rethrow(error, signal);
    }
    // The SDK ends the iteration quietly when its request is aborted: say so.
    throwIfAborted(signal);
    assembler.finish(out);
    yield* out;
  }

  private body(messages: LlmMessage[], tools: LlmToolDefinition[], options: LlmCallOptions): MessageCreateParamsBase {
    const converted = convertMessagesToAnthropic(messages, this.events);
    const body: MessageCreateParamsBase = {
      model: options.model ?? this.model,
      max_tokens: options.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages: converted.messages,
    };
    if (converted.system !== undefined) body.system = converted.system;
    if (tools.length > 0) body.tools = convertToolsToAnthropic(tools);
    // options.temperature is not sent: the Messages API of SDK 1.12 has no such parameter.
    return body;
  }
}
