import type { Locale } from '../config/app-config';
import type { CountTokens } from '../providers/token-estimate';
import type { ThreadMessage } from '../threads/thread.types';
import { buildRecallBlock, buildSummariesBlock } from './memory-context.blocks';
import { turnMemoryId } from './memory-id';
import type { MemoryRecord } from './memory-record';
import type { MemoryRepository } from './memory.repository';
import { HistoryTurnCost, planHistoryWindow } from './history-window.planner';
import type { MemoryRecaller, RecalledMemory } from './recall/memory.recaller';
import { splitConversationTurns } from './turns/conversation-turn.splitter';
import { closedTurnEnds } from './turns/measured-turn';

export interface MemoryContextOptions {
  /** MEMORY_ENABLED=false: the history is left to the plain pruning, nothing is recalled. */
  enabled: boolean;
  recallMaxTokens: number;
  summaryMaxTokens: number;
  countTokens: CountTokens;
  locale: Locale;
}

export interface MemoryContextRequest {
  workspace: string;
  threadId: string;
  /** The thread's stored messages without its stored system prompt. */
  messages: readonly ThreadMessage[];
  /** The message the context is for (recall looks for memory about it). */
  question: string;
  /** Tokens the history (turns and their messages), the summaries and the recalled records may take together. */
  budget: number;
  /** Tokens of the current question's retrieved context, sent inside the current turn. */
  currentContextTokens: number;
  signal?: AbortSignal;
}

/** What memory adds to a request whose history no longer fits; everything empty when it fits. */
export interface MemoryContext {
  /** The stored messages to send: from the first kept turn on (all of them when the history fits). */
  messages: ThreadMessage[];
  /** The summaries standing for the turns left out, as one block (null when nothing is left out). */
  summariesBlock: string | null;
  /** The records recalled for the question, as one block of its context (null when none). */
  recallBlock: string | null;
  summaries: MemoryRecord[];
  recalled: RecalledMemory[];
  /** Turns left out of the history. */
  turnsLeftOut: number;
}

/** Framing of one message as the history estimate counts it (role, separators). */
const MESSAGE_TOKENS = 4;

/**
 * Memory's part of a request. While the whole history fits, nothing changes. Otherwise the history
 * is cut at the end of a level-1 summary (planHistoryWindow), the summaries stand for what is cut,
 * and records about the question are recalled — never one the model already sees (a turn still in
 * the history, a summary shown) — within MEMORY_RECALL_MAX_TOKENS, which the window leaves free.
 */
export class MemoryContextBuilder {
  constructor(
    private readonly repository: MemoryRepository,
    private readonly recaller: MemoryRecaller,
    private readonly options: MemoryContextOptions,
  ) {}

  async build(request: MemoryContextRequest): Promise<MemoryContext> {
    const untouched: MemoryContext = {
      messages: [...request.messages],
      summariesBlock: null,
      recallBlock: null,
      summaries: [],
      recalled: [],
      turnsLeftOut: 0,
    };
    if (!this.options.enabled) return untouched;
    const costs = turnCosts(request.messages, this.options.countTokens);
    if (costs.length > 0) costs[costs.length - 1].tokens += request.currentContextTokens;
    const total = costs.reduce((sum, turn) => sum + turn.tokens, 0);
    if (total <= request.budget) return untouched;

    const [level1, level2] = await Promise.all(
      [1, 2].map((level) =>
        this.repository.list(request.workspace, request.threadId, { level: level as 1 | 2, vectors: false }),
      ),
    );
    const summaries = [...level1, ...level2];
    const window = planHistoryWindow({
      turns: costs,
      turnEnds: closedTurnEnds(splitConversationTurns(request.messages)),
      summaries,
      budget: request.budget - this.options.recallMaxTokens,
      summaryMaxTokens: this.options.summaryMaxTokens,
      countTokens: this.options.countTokens,
    });
    const kept = costs.slice(window.firstKept).map((turn) => turn.turnId);
    const firstKeptIndex = request.messages.findIndex((message) => message.id === kept[0]);
    const exclude = new Set([
      ...kept.map((turnId) => turnMemoryId(request.threadId, turnId)),
      ...window.summaries.map((record) => record.memoryId),
    ]);
    const recalled = await this.recaller.recall({
      workspace: request.workspace,
      threadId: request.threadId,
      query: request.question,
      exclude,
      signal: request.signal,
    });
    return {
      messages: firstKeptIndex <= 0 ? [...request.messages] : request.messages.slice(firstKeptIndex),
      summariesBlock: buildSummariesBlock(window.summaries, this.options.locale),
      recallBlock: buildRecallBlock(recalled, this.options.locale),
      summaries: window.summaries,
      recalled,
      turnsLeftOut: window.firstKept,
    };
  }
}

/**
 * The tokens each turn of the history takes as sent (a user message and everything up to the next,
 * system messages aside: earlier questions' contexts are never sent again), with the history
 * estimate's framing; messages before the first question count with the first turn.
 */
function turnCosts(messages: readonly ThreadMessage[], countTokens: CountTokens): HistoryTurnCost[] {
  const turns: HistoryTurnCost[] = [];
  let before = 0;
  for (const message of messages) {
    if (message.role === 'system') continue;
    let tokens = MESSAGE_TOKENS + countTokens(message.content ?? '');
    for (const call of message.toolCalls ?? [])
      tokens += MESSAGE_TOKENS + countTokens(call.function.name) + countTokens(call.function.arguments);
    if (message.role === 'user') turns.push({ turnId: message.id, tokens: tokens + before });
    else if (turns.length === 0) before += tokens;
    else turns[turns.length - 1].tokens += tokens;
    if (message.role === 'user') before = 0;
  }
  return turns;
}
