import type { CountTokens } from '../providers/token-estimate';
import type { MemoryRecord } from './memory-record';

/** One turn of the history as sent: its user message id and the tokens its messages take. */
export interface HistoryTurnCost {
  turnId: string;
  tokens: number;
}

export interface HistoryWindowRequest {
  /** Every turn of the history, in order; the last one (the current question) is always sent. */
  turns: readonly HistoryTurnCost[];
  /** Conversation character where each closed turn ends (closedTurnEnds), by turn id. */
  turnEnds: ReadonlyMap<string, number>;
  /** The thread's level-1 and level-2 summaries. */
  summaries: readonly MemoryRecord[];
  /** Tokens the sent turns and the block of summaries may take together. */
  budget: number;
  /** Tokens the block of summaries may take (the oldest summaries are left out first). */
  summaryMaxTokens: number;
  countTokens: CountTokens;
}

export interface HistoryWindow {
  /** Index in `turns` of the first turn sent: 0 when the whole history fits. */
  firstKept: number;
  /** The summaries standing for turns[0..firstKept), oldest first. */
  summaries: MemoryRecord[];
  /** False when nothing fits the budget (the current turn alone is too big); the smallest window is given. */
  fits: boolean;
}

/**
 * Where a history that no longer fits is cut, and which summaries stand for what is cut
 * (the pruned history keeps the recent turns, summaries stand for the rest).
 *
 * The cut is placed at the end of a level-1 summary, the earliest one that makes the rest fit: the
 * most history is kept, the summaries cover exactly what is left out, and — what provider prompt
 * caches need — the cut moves only when the history outgrows it, by a whole summary at a time, so
 * the prompt's prefix (summaries, then the kept turns) stays byte-identical between those moves.
 * While no summary makes it fit (summaries are written in the background and may lag), the cut falls
 * back to the earliest turn that makes it fit, with the summaries that end before it.
 *
 * Shown summaries: the level-2 summaries ending at or before the cut, then the level-1 summaries
 * after the last of them up to the cut; oldest left out first beyond `summaryMaxTokens` (they stay
 * reachable through recall). Pure and deterministic.
 */
export function planHistoryWindow(request: HistoryWindowRequest): HistoryWindow {
  const { turns } = request;
  const suffix = suffixSums(turns.map((turn) => turn.tokens));
  if (suffix[0] <= request.budget) return { firstKept: 0, summaries: [], fits: true };

  const fitsAt = (index: number): MemoryRecord[] | null => {
    const end = index === 0 ? 0 : request.turnEnds.get(turns[index - 1].turnId);
    if (end === undefined) return null;
    const shown = summariesUpTo(request.summaries, end, request.summaryMaxTokens, request.countTokens);
    return suffix[index] + blockTokens(shown, request.countTokens) <= request.budget ? shown : null;
  };

  const boundaries = new Set(
    request.summaries.filter((record) => record.level === 1).map((record) => record.charRange[1]),
  );
  for (let index = 1; index < turns.length; index += 1) {
    const end = request.turnEnds.get(turns[index - 1].turnId);
    if (end === undefined || !boundaries.has(end)) continue;
    const shown = fitsAt(index);
    if (shown) return { firstKept: index, summaries: shown, fits: true };
  }
  for (let index = 1; index < turns.length; index += 1) {
    const shown = fitsAt(index);
    if (shown) return { firstKept: index, summaries: shown, fits: true };
  }
  const last = Math.max(0, turns.length - 1);
  const end = last === 0 ? 0 : (request.turnEnds.get(turns[last - 1].turnId) ?? 0);
  return {
    firstKept: last,
    summaries: summariesUpTo(request.summaries, end, request.summaryMaxTokens, request.countTokens),
    fits: false,
  };
}

function suffixSums(values: number[]): number[] {
  const sums = new Array<number>(values.length + 1).fill(0);
  for (let index = values.length - 1; index >= 0; index -= 1) sums[index] = sums[index + 1] + values[index];
  return sums;
}

function summariesUpTo(
  summaries: readonly MemoryRecord[],
  end: number,
  maxTokens: number,
  countTokens: CountTokens,
): MemoryRecord[] {
  const byStart = (a: MemoryRecord, b: MemoryRecord) => a.charRange[0] - b.charRange[0] || a.level - b.level;
  const level2 = summaries.filter((record) => record.level === 2 && record.charRange[1] <= end).sort(byStart);
  const covered = level2.length > 0 ? level2[level2.length - 1].charRange[1] : 0;
  const level1 = summaries
    .filter((record) => record.level === 1 && record.charRange[0] >= covered && record.charRange[1] <= end)
    .sort(byStart);
  const shown = [...level2, ...level1];
  while (shown.length > 0 && blockTokens(shown, countTokens) > maxTokens) shown.shift();
  return shown;
}

/** The title line of each shown summary (kind, date, notes): about 12 tokens, counted high. */
const ENTRY_TITLE_TOKENS = 16;

/** Tokens of the summaries as shown. */
function blockTokens(records: readonly MemoryRecord[], countTokens: CountTokens): number {
  return records.reduce((sum, record) => sum + countTokens(record.text) + ENTRY_TITLE_TOKENS, 0);
}
