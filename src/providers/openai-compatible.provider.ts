import OpenAI from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions/completions';
import { EVENT_STREAM_PIECE_BYTES, undiciRequestFetch } from './undici-request.fetch';
import { asLlmAbortError, throwIfAborted } from './llm-abort.error';
import { LlmMessage, LlmToolDefinition } from '../conversation/llm-message';
import { LlmCallOptions, LlmCompletion, LlmProvider } from './llm-provider';
import { LlmStreamChunk } from './llm-stream-chunk';
import { convertOpenAiCompletion, toOpenAiMessages, toOpenAiTools } from './openai-message.converter';
import { OpenAiStreamAssembler } from './openai-stream.assembler';
import { sdkLogger } from './sdk.logger';
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS, DEFAULT_UPSTREAM_RESPONSE_TIMEOUT_MS } from './upstream-stream.guard';
import { relayUpstreamStream } from './upstream-stream.relay';

export interface OpenAiCompatibleProviderOptions {
  /** Registry name (deepseek, openai, qwen, ollama, ...). */
  providerName: string;
  baseURL: string;
  /** Keyless servers (Ollama, local vLLM) get a placeholder: the SDK insists on one. */
  apiKey?: string;
  model: string;
  /** Silence allowed between two upstream stream events before the request is cancelled (default 90 s). */
  streamIdleTimeoutMs?: number;
  /** Time allowed until the response headers arrive (the SDK timeout); a stream is then cut by streamIdleTimeoutMs. */
  timeoutMs?: number;
}

/**
 * OpenAI chat.completions for every compatible endpoint (DeepSeek, OpenAI, Qwen, Ollama, vLLM):
 * the official SDK with a baseURL. SDK retries are off (maxRetries 0): RetryingLlmProvider applies
 * the service's policy, which knows whether a token was already streamed.
 */
export class OpenAiCompatibleProvider implements LlmProvider {
  readonly providerName: string;
  readonly model: string;
  readonly offline = false;
  private readonly streamIdleTimeoutMs: number;
  private readonly client: OpenAI;

  constructor(options: OpenAiCompatibleProviderOptions) {
    this.providerName = options.providerName;
    this.model = options.model;
    this.streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
    this.client = new OpenAI({
      apiKey: options.apiKey || 'not-needed',
      baseURL: options.baseURL,
      maxRetries: 0,
      timeout: options.timeoutMs ?? DEFAULT_UPSTREAM_RESPONSE_TIMEOUT_MS,
      logger: sdkLogger(options.providerName),
      fetch: undiciRequestFetch({ eventStreamPieceBytes: EVENT_STREAM_PIECE_BYTES }),
    });
  }

  async complete(
    messages: LlmMessage[],
    tools: LlmToolDefinition[] = [],
    options: LlmCallOptions = {},
  ): Promise<LlmCompletion> {
    throwIfAborted(options.signal);
    try {
      const response = await this.client.chat.completions.create(
        { ...this.body(messages, tools, options), stream: false },
        { signal: options.signal },
      );
      return convertOpenAiCompletion(response);
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
      assembler: new OpenAiStreamAssembler(this.providerName),
      open: (signal) =>
        this.client.chat.completions.create(
          { ...this.body(messages, tools, options), stream: true, stream_options: { include_usage: true } },
          { signal },
        ),
    });
  }

  private body(
    messages: LlmMessage[],
    tools: LlmToolDefinition[],
    options: LlmCallOptions,
  ): ChatCompletionCreateParamsBase {
    const body: ChatCompletionCreateParamsBase = {
      model: options.model ?? this.model,
      messages: toOpenAiMessages(messages),
    };
    if (tools.length > 0) body.tools = toOpenAiTools(tools);
    if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens;
    if (options.temperature !== undefined) body.temperature = options.temperature;
    return body;
  }
}
