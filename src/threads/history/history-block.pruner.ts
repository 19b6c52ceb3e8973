import type { LlmMessage } from '../../conversation/llm-message';
import { type CountTokens, estimateTokens } from '../../providers/token-estimate';

export interface HistoryPruningOptions {
  /** Budget for the whole history (config.agent.historyMaxTokens). */
  maxTokens: number;
  countTokens: CountTokens;
}

export interface HistoryPruningResult {
  messages: LlmMessage[];
  /** Whole blocks removed, oldest first. */
  prunedBlocks: number;
  /** Estimate for `messages` (may exceed maxTokens when the system prompt and current block alone do). */
  estimatedTokens: number;
}

/**
 * Drops the oldest conversation blocks until the estimate fits `maxTokens`.
 *
 * A block is a user message and everything up to the next user message (the assistant answers,
 * their tool calls and all their results), plus a context system message placed right before that
 * user message. Removing whole blocks never separates a tool call from its result and never leaves
 * a conversation starting with an assistant message. Kept always: the leading system messages
 * (the system prompt) and the current (last) block, even when they alone exceed the budget — the
 * provider then answers `context_length`, which is the truthful outcome.
 */
export function pruneHistoryBlocks(
  messages: readonly LlmMessage[],
  options: HistoryPruningOptions,
): HistoryPruningResult {
  const headLength = leadingSystemCount(messages);
  const head = messages.slice(0, headLength);
  const blocks = splitIntoBlocks(messages.slice(headLength));

  const headTokens = estimateTokens(head, options.countTokens);
  const blockTokens = blocks.map((block) => estimateTokens(block, options.countTokens));
  let total = headTokens + blockTokens.reduce((sum, tokens) => sum + tokens, 0);

  let firstKept = 0;
  while (total > options.maxTokens && firstKept < blocks.length - 1) {
    total -= blockTokens[firstKept];
    firstKept += 1;
  }
  return { messages: [...head, ...blocks.slice(firstKept).flat()], prunedBlocks: firstKept, estimatedTokens: total };
}

function leadingSystemCount(messages: readonly LlmMessage[]): number {
  let count = 0;
  while (count < messages.length && messages[count].role === 'system') count += 1;
  return count;
}

/**
 * Splits after the head: a new block starts at each user message, or at a system message right
 * before a user message (the current question's context belongs to its question). Messages before
 * the first user message form a block of their own, pruned first.
 */
function splitIntoBlocks(messages: readonly LlmMessage[]): LlmMessage[][] {
  const blocks: LlmMessage[][] = [];
  let current: LlmMessage[] = [];
  messages.forEach((message, index) => {
    const startsBlock =
      (message.role === 'user' && messages[index - 1]?.role !== 'system') ||
      (message.role === 'system' && messages[index + 1]?.role === 'user');
    if (startsBlock && current.length > 0) {
      blocks.push(current);
      current = [];
    }
    current.push(message);
  });
  if (current.length > 0) blocks.push(current);
  return blocks;
}
