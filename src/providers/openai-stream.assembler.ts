import type { ChatCompletionChunk } from 'openai/resources/chat/completions/completions';
import { IncompleteStreamError } from './incomplete-stream.error';
import { LlmStreamChunk } from './llm-stream-chunk';
import { LlmUsage } from './llm-usage';
import { convertOpenAiUsage, generatedToolCallId, OpenAiWireUsage } from './openai-message.converter';
import type { UpstreamStreamAssembler } from './upstream-stream.relay';

interface ToolCallState {
  index: number;
  id: string;
  name: string;
  fragments: string[];
  started: boolean;
}

type WireToolCall = Partial<NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number]>;

/**
 * Turns OpenAI-compatible chat.completion.chunk objects into LlmStreamChunks:
 * text deltas become tokens; tool-call fragments are accumulated by index, announced
 * with tool_call_start once id and name are known, and closed with the full arguments at the end.
 * Copes with what compatible servers send: missing ids (generated, stable per response), a whole
 * call in one delta (Groq), usage on the finish chunk or after it (DeepSeek, OpenRouter),
 * reasoning deltas (ignored: not part of the answer).
 */
export class OpenAiStreamAssembler implements UpstreamStreamAssembler<ChatCompletionChunk> {
  private readonly calls = new Map<number, ToolCallState>();
  private lastIndex = 0;
  private usage: LlmUsage | null = null;
  private finishReason: string | null = null;
  private responseId = '';

  constructor(private readonly provider: string) {}

  /** Appends the chunks this wire chunk produces to `out`. */
  push(chunk: ChatCompletionChunk, out: LlmStreamChunk[]): void {
    if (!this.responseId && chunk.id) this.responseId = chunk.id;
    if (chunk.usage) this.usage = convertOpenAiUsage(chunk.usage as OpenAiWireUsage);
    const choices = chunk.choices;
    if (!choices) return;
    for (const choice of choices) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta;
      if (delta) {
        if (typeof delta.content === 'string' && delta.content !== '')
          out.push({ type: 'token', token: delta.content });
        else if (typeof delta.refusal === 'string' && delta.refusal !== '')
          out.push({ type: 'token', token: delta.refusal });
        if (delta.tool_calls) for (const call of delta.tool_calls) this.pushToolCall(call, out);
      }
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
  }

  /**
   * Closes the stream: every tool_call_done (by index), then usage, then done. A stream that ended
   * with neither a finish reason nor usage was cut short: IncompleteStreamError.
   */
  finish(out: LlmStreamChunk[]): void {
    if (this.finishReason === null && this.usage === null) throw new IncompleteStreamError(this.provider);
    const calls = [...this.calls.values()].sort((a, b) => a.index - b.index);
    for (const call of calls) {
      if (!call.started) this.start(call, out);
      out.push({
        type: 'tool_call_done',
        toolCall: { index: call.index, id: call.id, name: call.name, arguments: call.fragments.join('') },
      });
    }
    if (this.usage) out.push({ type: 'usage', usage: this.usage });
    out.push({ type: 'done', finishReason: this.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop') });
  }

  private pushToolCall(wire: WireToolCall, out: LlmStreamChunk[]): void {
    const index = this.indexOf(wire);
    let call = this.calls.get(index);
    if (!call) {
      call = { index, id: '', name: '', fragments: [], started: false };
      this.calls.set(index, call);
    }
    this.lastIndex = index;
    if (wire.id && !call.started) call.id = wire.id;
    if (wire.function?.name && !call.started) call.name = wire.function.name;
    if (wire.function?.arguments) call.fragments.push(wire.function.arguments);
    if (!call.started && call.name) this.start(call, out);
  }

  /** `index` is required by the spec, but some servers omit it: fall back on the id, then on the last call. */
  private indexOf(wire: WireToolCall): number {
    if (typeof wire.index === 'number') return wire.index;
    if (wire.id) {
      for (const call of this.calls.values()) if (call.id === wire.id) return call.index;
      return this.calls.size;
    }
    return this.calls.size === 0 ? 0 : this.lastIndex;
  }

  private start(call: ToolCallState, out: LlmStreamChunk[]): void {
    if (!call.id) call.id = generatedToolCallId(this.responseId, call.index);
    call.started = true;
    out.push({ type: 'tool_call_start', toolCall: { index: call.index, id: call.id, name: call.name } });
  }
}
