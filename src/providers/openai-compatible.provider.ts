import OpenAI from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions/completions';
import { isAbortError, LlmAbortError, throwIfAborted } from './llm-abort.error';
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS, UpstreamStreamGuard } from './upstream-stream.guard';
import { LlmCallOptions, LlmCompletion, LlmProvider } from './llm-provider';
import { LlmMessage, LlmToolDefinition } from './llm-message';
import { LlmStreamChunk } from './llm-stream-chunk';
import { convertOpenAiCompletion, toOpenAiMessages, toOpenAiTools } from './openai-message.converter';
import { OpenAiStreamAssembler } from './openai-stream.assembler';

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

/** Until the response headers: a non-streaming answer's headers come with the whole answer. */
const DEFAULT_TIMEOUT_MS = 300_000;

/** An error from a request the caller aborted becomes our LlmAbortError; anything else passes. */
function rethrow(error: unknown, signal: AbortSignal | undefined): never {
  if (signal?.aborted || isAbortError(error)) throw new LlmAbortError(undefined, { cause: error });
  throw error;
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
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
  }

  async complete(messages: LlmMessage[], tools: LlmToolDefinition[] = [], options: LlmCallOptions = {}): Promise<LlmCompletion> {
    throwIfAborted(options.signal);
    try {
      const response = await this.client.chat.completions.create(
        { ...this.body(messages, tools, options), stream: false },
        { signal: options.signal },
      );
      return convertOpenAiCompletion(response);
    } catch (error) {
      rethrow(error, options.signal);
    }
  }

  async *stream(messages: LlmMessage[], tools: LlmToolDefinition[] = [], options: LlmCallOptions = {}): AsyncGenerator<LlmStreamChunk> {
    throwIfAborted(options.signal);
    const guard = new UpstreamStreamGuard(this.providerName, options.signal, this.streamIdleTimeoutMs);
    const assembler = new OpenAiStreamAssembler(this.providerName);
    const out: LlmStreamChunk[] = [];
    try {
      const upstream = await this.client.chat.completions.create(
        { ...this.body(messages, tools, options), stream: true, stream_options: { include_usage: true } },
        { signal: guard.signal },
      );
      for await (const chunk of upstream) {
        guard.touch();
        assembler.push(chunk, out);
        if (out.length === 0) continue;
        for (const item of out) yield item;
        out.length = 0;
      }
    } catch (error) {
      throw guard.failure(error);
    } finally {
      guard.dispose();
    }
    // The SDK ends the iteration quietly when its request is aborted: say why.
    guard.throwIfCut();
    assembler.finish(out);
    yield* out;
  }

  private body(messages: LlmMessage[], tools: LlmToolDefinition[], options: LlmCallOptions): ChatCompletionCreateParamsBase {
    const body: ChatCompletionCreateParamsBase = { model: options.model ?? this.model, messages: toOpenAiMessages(messages) };
    if (tools.length > 0) body.tools = toOpenAiTools(tools);
    if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens;
    if (options.temperature !== undefined) body.temperature = options.temperature;
    return body;
  }
}
