import type { LlmMessage } from '../../conversation/llm-message';
import type { CountTokens } from '../../providers/token-estimate';
import type { ThreadMessage } from '../thread.types';
import { pruneHistoryBlocks } from './history-block.pruner';
import { toLlmMessages } from './llm-history.converter';
import { assertThreadIsolation } from './thread-isolation.guard';
import { sanitizeToolCallPairing } from './tool-call-pairing.sanitizer';

export interface LlmHistoryRequest {
  /** The thread the history is built for: a message of another one is refused. */
  threadId: string;
  messages: readonly ThreadMessage[];
  /** The context retrieved for the current question (default: the one stored with it). */
  currentContext?: ThreadMessage | null;
  /** config.agent.historyMaxTokens */
  maxTokens: number;
  countTokens: CountTokens;
}

export interface LlmHistory {
  messages: LlmMessage[];
  estimatedTokens: number;
  prunedBlocks: number;
  synthesizedResults: string[];
  droppedResults: number;
}

/**
 * The three steps in the only safe order: convert (prompt first, current context only), pair tool
 * calls with results (so blocks are complete and their estimate includes synthetic results), then
 * prune whole blocks to the budget. First, every message must belong to the thread (else
 * thread_isolation_violation, internal).
 */
export function buildLlmHistory(request: LlmHistoryRequest): LlmHistory {
  assertThreadIsolation(
    request.currentContext ? [...request.messages, request.currentContext] : request.messages,
    request.threadId,
    'history',
  );
  const converted = toLlmMessages(request.messages, request.currentContext);
  const paired = sanitizeToolCallPairing(converted);
  const pruned = pruneHistoryBlocks(paired.messages, {
    maxTokens: request.maxTokens,
    countTokens: request.countTokens,
  });
  return {
    messages: pruned.messages,
    estimatedTokens: pruned.estimatedTokens,
    prunedBlocks: pruned.prunedBlocks,
    synthesizedResults: paired.synthesizedResults,
    droppedResults: paired.droppedResults,
  };
}
