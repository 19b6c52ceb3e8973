import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages/messages';
import { AiEventLogger } from '../observability/ai-event.logger';
import {
  convertAnthropicResponse,
  convertMessagesToAnthropic,
  convertToolsToAnthropic,
  describeToolBlocksAsText,
} from './anthropic-message.converter';
import { AnthropicStreamAssembler } from './anthropic-stream.assembler';
import { asLlmAbortError, throwIfAborted } from './llm-abort.error';
import { LlmMessage, LlmToolDefinition } from '../conversation/llm-message';
import { LlmCallOptions, LlmCompletion, LlmProvider } from './llm-provider';
import { LlmStreamChunk } from './llm-stream-chunk';
import { sdkLogger } from './sdk.logger';
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS, DEFAULT_UPSTREAM_RESPONSE_TIMEOUT_MS } from './upstream-stream.guard';
import { undiciRequestFetch } from './undici-request.fetch';
import { relayUpstreamStream } from './upstream-stream.relay';

export interface AnthropicProviderOptions {
  providerName?: string;
  baseURL: string;
  apiKey: string;
  model: string;
  /** Silence allowed between two upstream stream events before the request is cancelled (default 90 s). */
  streamIdleTimeoutMs?: number;
  /** Time allowed until the response headers arrive (the SDK timeout); a stream is then cut by streamIdleTimeoutMs. */
  timeoutMs?: number;
  events?: AiEventLogger;
}

/** max_tokens is mandatory for Anthropic: 4096 unless options.maxTokens. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/**
 * Anthropic Messages through @anthropic-ai/sdk (SDK retries off; RetryingLlmProvider decides).
 * Messages are converted from our OpenAI shape (anthropic-message.converter.ts); the stable system
 * prompt marked `cacheBreakpoint` gets a cache_control breakpoint so the prefix is cached.
 */
export class AnthropicProvider implements LlmProvider {
  readonly providerName: string;
  readonly model: string;
  readonly offline = false;
  private readonly streamIdleTimeoutMs: number;
  private readonly client: Anthropic;
  private readonly events: AiEventLogger;

  constructor(options: AnthropicProviderOptions) {
    this.providerName = options.providerName ?? 'anthropic';
    this.model = options.model;
    this.streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
    this.events = options.events ?? new AiEventLogger('anthropic');
    this.client = new Anthropic({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      maxRetries: 0,
      timeout: options.timeoutMs ?? DEFAULT_UPSTREAM_RESPONSE_TIMEOUT_MS,
      logger: sdkLogger(this.providerName),
      fetch: undiciRequestFetch(),
    });
  }

  async complete(
    messages: LlmMessage[],
    tools: LlmToolDefinition[] = [],
    options: LlmCallOptions = {},
  ): Promise<LlmCompletion> {
    throwIfAborted(options.signal);
    try {
      const response = await this.client.messages.create(
        { ...this.body(messages, tools, options), stream: false },
        { signal: options.signal },
      );
      return convertAnthropicResponse(response);
    } catch (error) {
      throw asLlmAbortError(error, options.signal);
    }
  }

  async *stream(
    messages: LlmMessage[],
    tools: LlmToolDefinition[] = [],
    options: LlmCallOptions = {},
  ): AsyncGenerator<LlmStreamChunk> {
    yield* relayUpstreamStream({
      provider: this.providerName,
      signal: options.signal,
      idleTimeoutMs: this.streamIdleTimeoutMs,
      assembler: new AnthropicStreamAssembler(),
      open: (signal) =>
        this.client.messages.create({ ...this.body(messages, tools, options), stream: true }, { signal }),
    });
  }

  private body(messages: LlmMessage[], tools: LlmToolDefinition[], options: LlmCallOptions): MessageCreateParamsBase {
    const converted = convertMessagesToAnthropic(messages, this.events);
    const body: MessageCreateParamsBase = {
      model: options.model ?? this.model,
      max_tokens: options.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      // Without tools (the agent's last call after its tool rounds) the API refuses tool blocks.
      messages: tools.length > 0 ? converted.messages : describeToolBlocksAsText(converted.messages),
    };
    if (converted.system !== undefined) body.system = converted.system;
    if (tools.length > 0) body.tools = convertToolsToAnthropic(tools);
    // options.temperature is not sent: the Messages API of SDK 1.12 has no such parameter.
    return body;
  }
}
