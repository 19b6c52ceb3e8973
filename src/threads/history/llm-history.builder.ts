import type { LlmMessage } from '../../conversation/llm-message';
import type { CountTokens } from '../../providers/token-estimate';
import type { ThreadMessage } from '../thread.types';
import { pruneHistoryBlocks } from './history-block.pruner';
import { toLlmMessages } from './llm-history.converter';
import { sanitizeToolCallPairing } from './tool-call-pairing.sanitizer';

export interface LlmHistoryRequest {
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
 * prune whole blocks to the budget.
 */
export function buildLlmHistory(request: LlmHistoryRequest): LlmHistory {
  const converted = toLlmMessages(request.messages, request.currentContext);
  const paired = sanitizeToolCallPairing(converted);
  const pruned = pruneHistoryBlocks(paired.messages, { maxTokens: request.maxTokens, countTokens: request.countTokens });
  return {
    messages: pruned.messages,
    estimatedTokens: pruned.estimatedTokens,
    prunedBlocks: pruned.prunedBlocks,
    synthesizedResults: paired.synthesizedResults,
    droppedResults: paired.droppedResults,
  };
}
