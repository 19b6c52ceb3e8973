import type {
  ChatCompletion,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { LlmCompletion } from './llm-provider';
import { LlmAssistantMessage, LlmMessage, LlmToolCall, LlmToolDefinition } from '../conversation/llm-message';
import { LlmUsage } from './llm-usage';

/** Usage as OpenAI-compatible servers send it; DeepSeek adds prompt_cache_hit_tokens. */
export type OpenAiWireUsage = Partial<CompletionUsage> & { prompt_cache_hit_tokens?: number | null };

/** cachedTokens from prompt_tokens_details.cached_tokens (OpenAI), else DeepSeek's prompt_cache_hit_tokens. */
export function convertOpenAiUsage(usage: OpenAiWireUsage): LlmUsage {
  const promptTokens = usage.prompt_tokens ?? 0;
  const completionTokens = usage.completion_tokens ?? 0;
  const cachedTokens = usage.prompt_tokens_details?.cached_tokens || usage.prompt_cache_hit_tokens || 0;
  return {
    promptTokens,
    completionTokens,
    cachedTokens,
    totalTokens: usage.total_tokens ?? promptTokens + completionTokens,
  };
}

/** Some compatible servers omit tool-call ids; the generated one is stable for the whole response. */
export function generatedToolCallId(responseId: string | undefined, index: number): string {
  return `call_${(responseId || 'gen').replace(/[^A-Za-z0-9_-]/g, '').slice(0, 40)}_${index}`;
}

/**
 * Our messages are already the OpenAI shape; each is rebuilt with the wire's fields only, so our own
 * markers (cacheBreakpoint, threadId, a tool result's name, success and duration) never go upstream.
 */
export function toOpenAiMessages(messages: LlmMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return { role: 'user', content: message.content };
      case 'tool':
        return { role: 'tool', content: message.content, tool_call_id: message.tool_call_id };
      case 'assistant': {
        const converted: ChatCompletionMessageParam = { role: 'assistant', content: message.content };
        if (message.tool_calls?.length) converted.tool_calls = message.tool_calls;
        return converted;
      }
    }
  });
}

export function toOpenAiTools(tools: LlmToolDefinition[]): ChatCompletionTool[] {
  return tools.map((tool) => ({ type: 'function', function: tool.function }));
}

/** A non-streaming chat.completion as our LlmCompletion. */
export function convertOpenAiCompletion(response: ChatCompletion): LlmCompletion {
  const choice = response.choices?.[0];
  const wire = choice?.message;
  const toolCalls: LlmToolCall[] = [];
  (wire?.tool_calls ?? []).forEach((call, index) => {
    if (call.type !== 'function') return;
    toolCalls.push({
      id: call.id || generatedToolCallId(response.id, index),
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments ?? '' },
    });
  });
  const message: LlmAssistantMessage = { role: 'assistant', content: wire?.content ?? wire?.refusal ?? null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    message,
    usage: response.usage ? convertOpenAiUsage(response.usage as OpenAiWireUsage) : null,
    model: response.model,
    finishReason: choice?.finish_reason ?? null,
  };
}
