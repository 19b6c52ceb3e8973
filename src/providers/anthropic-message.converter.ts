import type {
  ContentBlockParam,
  Message,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlockParam,
  Usage,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { AiEventLogger } from '../observability/ai-event.logger';
import { LlmCompletion } from './llm-provider';
import {
  LlmAssistantMessage,
  LlmMessage,
  LlmSystemMessage,
  LlmToolCall,
  LlmToolDefinition,
} from '../conversation/llm-message';
import { LlmUsage } from './llm-usage';

const defaultEvents = new AiEventLogger('anthropic');

export interface AnthropicRequestMessages {
  /**
   * Undefined when there is no system text (the API refuses an empty one). A plain string joined
   * with "\n\n" unless a system message asks for a cache breakpoint: then text blocks, the block
   * that ends at the breakpoint carrying `cache_control: { type: "ephemeral" }`.
   */
  system: string | TextBlockParam[] | undefined;
  messages: MessageParam[];
}

/** Tool-call arguments as the object Anthropic wants; bad JSON becomes {} and a malformed_json log. */
function parseToolInput(call: LlmToolCall, events: AiEventLogger): Record<string, unknown> {
  const raw = call.function.arguments;
  if (raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // fall through to the log below
  }
  events.malformedJson({ raw, context: `anthropic_tool_use:${call.function.name}`, corrected: '{}' });
  return {};
}

/** Anthropic accepts at most four cache_control breakpoints per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

const EPHEMERAL = { type: 'ephemeral' } as const;

function systemBlocks(
  systems: LlmSystemMessage[],
  breakpoints: ReadonlySet<LlmMessage>,
): string | TextBlockParam[] | undefined {
  const texts = systems.filter((message) => message.content.trim() !== '');
  if (texts.length === 0) return undefined;
  if (!texts.some((message) => breakpoints.has(message))) return texts.map((message) => message.content).join('\n\n');
  const blocks: TextBlockParam[] = [];
  let pending: string[] = [];
  for (const message of texts) {
    pending.push(message.content);
    if (breakpoints.has(message)) {
      blocks.push({ type: 'text', text: pending.join('\n\n'), cache_control: EPHEMERAL });
      pending = [];
    }
  }
  if (pending.length > 0) blocks.push({ type: 'text', text: pending.join('\n\n') });
  return blocks;
}

/**
 * The breakpoints sent: every marked message up to four; beyond, the first three (the stable prompt
 * levels) and the last one (the end of the history).
 */
function keptBreakpoints(messages: LlmMessage[]): Set<LlmMessage> {
  const marked = messages.filter((message) => message.cacheBreakpoint);
  if (marked.length <= MAX_CACHE_BREAKPOINTS) return new Set(marked);
  return new Set([...marked.slice(0, MAX_CACHE_BREAKPOINTS - 1), marked[marked.length - 1]]);
}

/** The content of a converted message with cache_control on its last block. */
function withBreakpoint(content: MessageParam['content']): ContentBlockParam[] {
  const blocks = toBlocks(content);
  if (blocks.length === 0) return blocks;
  return [...blocks.slice(0, -1), { ...blocks[blocks.length - 1], cache_control: EPHEMERAL } as ContentBlockParam];
}

function toBlocks(content: MessageParam['content']): ContentBlockParam[] {
  return typeof content === 'string' ? (content === '' ? [] : [{ type: 'text', text: content }]) : content;
}

/** Appends a message, merging it into the previous one when both have the same role (the API alternates roles). */
function pushMerged(out: MessageParam[], next: MessageParam): void {
  const previous = out[out.length - 1];
  if (!previous || previous.role !== next.role) {
    out.push(next);
    return;
  }
  const previousBlocks = toBlocks(previous.content);
  const nextBlocks = toBlocks(next.content);
  // tool_result blocks must come first in a user turn: keep results ahead of text.
  const merged = [...previousBlocks, ...nextBlocks].sort(
    (a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'),
  );
  out[out.length - 1] = { role: previous.role, content: merged } as MessageParam;
}

/**
 * The Messages API's shape of our messages: the system messages that open the list (the stable
 * prompt levels) become the root `system` (joined with "\n\n", or text blocks when they carry
 * cache breakpoints); a system message further down (the per-message context, recalled memory,
 * thread events) becomes text of the user turn it sits in, so that it does not change the root
 * `system` — which Anthropic reads before every message, and whose change would make the whole
 * history uncacheable. Assistant tool_calls become tool_use blocks, tool messages tool_result
 * blocks of user messages; same-role neighbours are merged so that two user messages never follow
 * each other. A message marked `cacheBreakpoint` gets `cache_control` on its last block (at most
 * four: keptBreakpoints).
 */
export function convertMessagesToAnthropic(
  messages: LlmMessage[],
  events: AiEventLogger = defaultEvents,
): AnthropicRequestMessages {
  const breakpoints = keptBreakpoints(messages);
  let leading = 0;
  while (leading < messages.length && messages[leading].role === 'system') leading += 1;
  const out: MessageParam[] = [];
  const push = (message: LlmMessage, converted: MessageParam) =>
    pushMerged(
      out,
      breakpoints.has(message)
        ? ({ role: converted.role, content: withBreakpoint(converted.content) } as MessageParam)
        : converted,
    );
  messages.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        if (index >= leading && message.content.trim() !== '')
          push(message, { role: 'user', content: [{ type: 'text', text: message.content }] });
        break;
      case 'user':
        push(message, { role: 'user', content: message.content });
        break;
      case 'assistant': {
        const blocks: Array<TextBlockParam | ToolUseBlockParam> = [];
        if (message.content) blocks.push({ type: 'text', text: message.content });
        for (const call of message.tool_calls ?? []) {
          blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseToolInput(call, events) });
        }
        // An empty assistant turn is refused by the API and carries nothing.
        if (blocks.length === 0) break;
        const onlyText = blocks.length === 1 && blocks[0].type === 'text';
        push(message, { role: 'assistant', content: onlyText ? (blocks[0] as TextBlockParam).text : blocks });
        break;
      }
      case 'tool': {
        const result: ToolResultBlockParam = {
          type: 'tool_result',
          tool_use_id: message.tool_call_id,
          content: message.content,
        };
        push(message, { role: 'user', content: [result] });
        break;
      }
    }
  });
  return { system: systemBlocks(messages.slice(0, leading) as LlmSystemMessage[], breakpoints), messages: out };
}

/**
 * The messages with their tool_use and tool_result blocks written as text. The Messages API refuses
 * a request whose messages hold such blocks unless it also defines tools ("Requests which include
 * `tool_use` or `tool_result` blocks must define tools"), and the agent's last call after its tool
 * rounds (and any call without tools) must still see what the tools returned.
 */
export function describeToolBlocksAsText(messages: MessageParam[]): MessageParam[] {
  const toolNames = new Map<string, string>();
  return messages.map((message) => {
    if (typeof message.content === 'string') return message;
    let changed = false;
    const content = message.content.map((block): ContentBlockParam => {
      if (block.type === 'tool_use') {
        changed = true;
        toolNames.set(block.id, block.name);
        return { type: 'text', text: `[tool call ${block.name} ${JSON.stringify(block.input ?? {})}]` };
      }
      if (block.type === 'tool_result') {
        changed = true;
        const result =
          typeof block.content === 'string'
            ? block.content
            : (block.content ?? []).map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
        return { type: 'text', text: `[result of ${toolNames.get(block.tool_use_id) ?? 'tool call'}]\n${result}` };
      }
      return block;
    });
    return changed ? ({ role: message.role, content } as MessageParam) : message;
  });
}

/** Tool definitions for the Messages API: function name/description/parameters → name/description/input_schema. */
export function convertToolsToAnthropic(tools: LlmToolDefinition[]): Tool[] {
  return tools.map((tool) => {
    const converted: Tool = {
      name: tool.function.name,
      input_schema: { type: 'object', ...tool.function.parameters } as Tool['input_schema'],
    };
    if (tool.function.description) converted.description = tool.function.description;
    return converted;
  });
}

/**
 * Anthropic usage in our terms. `input_tokens` excludes the cached part, so the prompt is
 * input + cache creation + cache read; cachedTokens is the cache read (billed at the cache-hit price).
 */
export function convertAnthropicUsage(usage: Pick<Usage, 'input_tokens' | 'output_tokens'> & Partial<Usage>): LlmUsage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const promptTokens = (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + cacheRead;
  const completionTokens = usage.output_tokens ?? 0;
  return { promptTokens, completionTokens, cachedTokens: cacheRead, totalTokens: promptTokens + completionTokens };
}

/** Anthropic stop reasons in the OpenAI vocabulary the rest of the service uses. */
export function normalizeAnthropicStopReason(reason: string | null | undefined): string | null {
  switch (reason) {
    case undefined:
    case null:
      return null;
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return reason;
  }
}

/**
 * A Messages API answer in our shape: text of the text blocks, tool_use blocks as OpenAI tool_calls
 * (input JSON-stringified), usage with cache reads as cachedTokens.
 */
export function convertAnthropicResponse(
  response: Pick<Message, 'content' | 'usage' | 'model' | 'stop_reason'>,
): LlmCompletion {
  let text = '';
  const toolCalls: LlmToolCall[] = [];
  for (const block of response.content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const message: LlmAssistantMessage = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    message,
    usage: response.usage ? convertAnthropicUsage(response.usage) : null,
    model: response.model,
    finishReason: normalizeAnthropicStopReason(response.stop_reason),
  };
}
