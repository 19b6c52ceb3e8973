import type { RawMessageStreamEvent, Usage } from '@anthropic-ai/sdk/resources/messages/messages';
import { convertAnthropicUsage, normalizeAnthropicStopReason } from './anthropic-message.converter';
import { IncompleteStreamError } from './incomplete-stream.error';
import { LlmStreamChunk } from './llm-stream-chunk';
import type { UpstreamStreamAssembler } from './upstream-stream.relay';

interface ToolUseState {
  ordinal: number;
  id: string;
  name: string;
  fragments: string[];
  input: unknown;
}

type UsageCounts = Pick<Usage, 'input_tokens' | 'output_tokens'> & Partial<Usage>;

/**
 * Maps Anthropic Messages stream events to LlmStreamChunks:
 * text_delta → token; a tool_use block start → tool_call_start; input_json_delta
 * pieces accumulated; content_block_stop of a tool_use → tool_call_done with the concatenated
 * JSON; usage from message_start, updated by message_delta. Tool-call indexes count tool_use
 * blocks (0, 1, ...), not content blocks. Stop reasons are normalized to the OpenAI vocabulary.
 */
export class AnthropicStreamAssembler implements UpstreamStreamAssembler<RawMessageStreamEvent> {
  private readonly toolsByBlock = new Map<number, ToolUseState>();
  private toolCount = 0;
  private usage: UsageCounts | null = null;
  private stopReason: string | null = null;
  private stopped = false;

  push(event: RawMessageStreamEvent, out: LlmStreamChunk[]): void {
    switch (event.type) {
      case 'message_start':
        this.usage = { ...event.message.usage };
        break;
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text' && block.text) out.push({ type: 'token', token: block.text });
        if (block.type === 'tool_use') {
          const state: ToolUseState = {
            ordinal: this.toolCount++,
            id: block.id,
            name: block.name,
            fragments: [],
            input: block.input,
          };
          this.toolsByBlock.set(event.index, state);
          out.push({ type: 'tool_call_start', toolCall: { index: state.ordinal, id: state.id, name: state.name } });
        }
        break;
      }
      case 'content_block_delta': {
        const delta = event.delta;
        if (delta.type === 'text_delta') {
          if (delta.text) out.push({ type: 'token', token: delta.text });
        } else if (delta.type === 'input_json_delta') {
          this.toolsByBlock.get(event.index)?.fragments.push(delta.partial_json);
        }
        break;
      }
      case 'content_block_stop': {
        const state = this.toolsByBlock.get(event.index);
        if (state) {
          const streamed = state.fragments.join('');
          const args = streamed !== '' ? streamed : JSON.stringify(state.input ?? {});
          out.push({
            type: 'tool_call_done',
            toolCall: { index: state.ordinal, id: state.id, name: state.name, arguments: args },
          });
        }
        break;
      }
      case 'message_delta': {
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        const update = event.usage;
        if (update) {
          const base: UsageCounts = this.usage ?? { input_tokens: 0, output_tokens: 0 };
          // message_delta counts are cumulative; fields it leaves null keep message_start's value.
          this.usage = {
            ...base,
            output_tokens: update.output_tokens ?? base.output_tokens,
            input_tokens: update.input_tokens ?? base.input_tokens,
            cache_read_input_tokens: update.cache_read_input_tokens ?? base.cache_read_input_tokens,
            cache_creation_input_tokens: update.cache_creation_input_tokens ?? base.cache_creation_input_tokens,
          };
        }
        break;
      }
      case 'message_stop':
        this.stopped = true;
        break;
    }
  }

  /** Usage then done; a stream without message_stop was cut short (IncompleteStreamError). */
  finish(out: LlmStreamChunk[]): void {
    if (!this.stopped) throw new IncompleteStreamError('anthropic');
    if (this.usage) out.push({ type: 'usage', usage: convertAnthropicUsage(this.usage) });
    out.push({ type: 'done', finishReason: normalizeAnthropicStopReason(this.stopReason) });
  }
}
