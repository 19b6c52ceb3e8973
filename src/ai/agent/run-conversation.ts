import type { LlmMessage, LlmToolMessage } from '../../conversation/llm-message';
import { serializeToolResult } from '../tools/tool-result.limiter';

/**
 * The longest tool result sent once a run recovers from `context_length`: a quarter of a read result's usual 16,000 characters. What is stored
 * keeps the whole result.
 */
export const COMPACT_TOOL_RESULT_MAX_CHARS = 4_000;

/**
 * The messages of one run as the model is sent them: what the caller gave first (history, context,
 * question) and what the run added (its rounds), every message the run makes tagged with the run's
 * thread. After a `context_length` refusal the first part is replaced
 * by a smaller one and the run's tool results are sent shorter from then on.
 */
export class RunConversation {
  private base: LlmMessage[];
  private readonly added: LlmMessage[] = [];
  private compact = false;
  private readonly compacted = new WeakMap<LlmToolMessage, LlmToolMessage>();

  constructor(
    base: readonly LlmMessage[],
    private readonly threadId: string,
  ) {
    this.base = [...base];
  }

  /** The message, as the run's own: tagged with its thread. */
  own<Message extends LlmMessage>(message: Message): Message {
    return { ...message, threadId: this.threadId };
  }

  add(messages: readonly LlmMessage[]): void {
    this.added.push(...messages);
  }

  /** What the next call is sent; `note` (the loop's, never stored) closes it. */
  forCall(note: string | null): LlmMessage[] {
    const added = this.compact
      ? this.added.map((message) => (message.role === 'tool' ? this.shorter(message) : message))
      : this.added;
    return note === null ? [...this.base, ...added] : [...this.base, ...added, { role: 'system', content: note }];
  }

  /** Replaces what the caller gave first by a smaller version, and cuts the run's tool results from now on. */
  shrink(smaller: readonly LlmMessage[]): void {
    this.base = [...smaller];
    this.compact = true;
  }

  private shorter(message: LlmToolMessage): LlmToolMessage {
    let short = this.compacted.get(message);
    if (!short) {
      short = { ...message, content: shortenToolResult(message.content, COMPACT_TOOL_RESULT_MAX_CHARS) };
      this.compacted.set(message, short);
    }
    return short;
  }
}

/** A JSON tool result cut to `maxChars` the way read results are (lists shortened first, still JSON). */
export function shortenToolResult(content: string, maxChars: number): string {
  if (content.length <= maxChars) return content;
  try {
    const parsed: unknown = JSON.parse(content);
    if (parsed !== null && typeof parsed === 'object') return serializeToolResult(parsed, maxChars);
  } catch {
    // Not JSON: cut below.
  }
  return serializeToolResult({ partialResult: content }, maxChars);
}
