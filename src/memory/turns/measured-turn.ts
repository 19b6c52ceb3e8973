import { turnMemoryId } from '../memory-id';
import { ConversationTurn } from './conversation-turn';
import { turnMemoryTextLength } from './turn-memory-text.builder';

/** A closed turn with its place in the conversation's characters (its text: buildTurnMemoryText(turn)). */
export interface MeasuredTurn {
  turn: ConversationTurn;
  memoryId: string;
  /** [start, end) in the conversation's characters: the sum of the memory texts of the turns before it. */
  charRange: [number, number];
}

/**
 * The closed turns of a thread, each with its memory text and character range. A thread's
 * conversation characters are counted on these texts (each at most 4,000 characters), so a turn
 * with huge tool results weighs like a long turn, not like a book; the count only grows, and the
 * ranges of summaries and of the turns they cover line up exactly. Only the lengths are computed
 * (this runs on every message of a long thread); a turn's text is built when it is written.
 */
export function measureClosedTurns(threadId: string, turns: readonly ConversationTurn[]): MeasuredTurn[] {
  const measured: MeasuredTurn[] = [];
  let offset = 0;
  for (const turn of turns) {
    if (!turn.closed) break;
    const length = turnMemoryTextLength(turn);
    measured.push({ turn, memoryId: turnMemoryId(threadId, turn.turnId), charRange: [offset, offset + length] });
    offset += length;
  }
  return measured;
}

/**
 * Where each closed turn ends in the conversation's characters, by turn id: the request path's part of
 * measureClosedTurns (no memory ids, no texts), run on every message of a long thread.
 */
export function closedTurnEnds(turns: readonly ConversationTurn[]): Map<string, number> {
  const ends = new Map<string, number>();
  let offset = 0;
  for (const turn of turns) {
    if (!turn.closed) break;
    offset += turnMemoryTextLength(turn);
    ends.set(turn.turnId, offset);
  }
  return ends;
}
