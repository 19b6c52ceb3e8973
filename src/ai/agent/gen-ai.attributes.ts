import type { Attributes } from '@opentelemetry/api';
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
} from '@opentelemetry/semantic-conventions/incubating';
import type { LlmMessage, LlmToolCall } from '../../conversation/llm-message';
import type { LlmProvider } from '../../providers/llm-provider';
import type { LlmUsage } from '../../providers/llm-usage';

export { ATTR_GEN_AI_TOOL_CALL_ARGUMENTS };

/**
 * The GenAI semantic conventions' attributes of the agent's spans, from its own types. `gen_ai.provider.name` is the
 * current name of the provider attribute; `gen_ai.system`, the name it replaced, is set too for backends that still
 * read it.
 */
export function genAiCallAttributes(
  provider: Pick<LlmProvider, 'providerName' | 'model'>,
  threadId: string,
): Attributes {
  return {
    [ATTR_GEN_AI_PROVIDER_NAME]: provider.providerName,
    [ATTR_GEN_AI_SYSTEM]: provider.providerName,
    [ATTR_GEN_AI_REQUEST_MODEL]: provider.model,
    [ATTR_GEN_AI_CONVERSATION_ID]: threadId,
  };
}

/** What an upstream call used (the provider's figures, or the estimate recorded for it) and how it ended. */
export function genAiUsageAttributes(usage: LlmUsage, finishReason: string | null, aborted: boolean): Attributes {
  return {
    [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.promptTokens,
    [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.completionTokens,
    [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: usage.cachedTokens,
    ...(finishReason ? { [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: [finishReason] } : {}),
    ...(aborted ? { 'app.aborted': true } : {}),
  };
}

export function genAiToolAttributes(call: LlmToolCall, toolName: string, threadId: string): Attributes {
  return {
    [ATTR_GEN_AI_TOOL_NAME]: toolName,
    [ATTR_GEN_AI_TOOL_CALL_ID]: call.id,
    [ATTR_GEN_AI_TOOL_TYPE]: 'function',
    [ATTR_GEN_AI_CONVERSATION_ID]: threadId,
  };
}

/**
 * The messages sent and the answer received, as the conventions' JSON (`gen_ai.input.messages`,
 * `gen_ai.output.messages`): only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is on.
 */
export function genAiContentAttributes(content: {
  input?: readonly LlmMessage[];
  output?: { text: string; toolCalls: readonly LlmToolCall[] };
}): Attributes {
  const attributes: Attributes = {};
  if (content.input) attributes[ATTR_GEN_AI_INPUT_MESSAGES] = JSON.stringify(content.input.map(inputMessage));
  if (content.output) {
    const parts = [
      ...(content.output.text ? [{ type: 'text', content: content.output.text }] : []),
      ...content.output.toolCalls.map(toolCallPart),
    ];
    attributes[ATTR_GEN_AI_OUTPUT_MESSAGES] = JSON.stringify([{ role: 'assistant', parts }]);
  }
  return attributes;
}

function inputMessage(message: LlmMessage): Record<string, unknown> {
  switch (message.role) {
    case 'assistant':
      return {
        role: 'assistant',
        parts: [
          ...(message.content ? [{ type: 'text', content: message.content }] : []),
          ...(message.tool_calls ?? []).map(toolCallPart),
        ],
      };
    case 'tool':
      return {
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: message.tool_call_id, response: message.content }],
      };
    default:
      return { role: message.role, parts: [{ type: 'text', content: message.content }] };
  }
}

function toolCallPart(call: LlmToolCall): Record<string, unknown> {
  return { type: 'tool_call', id: call.id, name: call.function.name, arguments: call.function.arguments };
}
