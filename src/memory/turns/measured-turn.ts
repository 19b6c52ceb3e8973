import { turnMemoryId } from '../memory-id';
import { ConversationTurn } from './conversation-turn';
import { buildTurnMemoryText } from './turn-memory-text.builder';

/** A closed turn with its memory text and its place in the conversation's characters. */
export interface MeasuredTurn {
  turn: ConversationTurn;
  memoryId: string;
  text: string;
  /** [start, end) in the conversation's characters: the sum of the memory texts of the turns before it. */
  charRange: [number, number];
}

/**
 * The closed turns of a thread, each with its memory text and character range. A thread's
 * conversation characters are counted on these texts (each at most 4,000 characters), so a turn
 * with huge tool results weighs like a long turn, not like a book; the count only grows, and the
 * ranges of summaries and of the turns they cover line up exactly.
 */
export function measureClosedTurns(threadId: string, turns: readonly ConversationTurn[]): MeasuredTurn[] {
  const measured: MeasuredTurn[] = [];
  let offset = 0;
  for (const turn of turns) {
    if (!turn.closed) break;
    const text = buildTurnMemoryText(turn);
    measured.push({ turn, memoryId: turnMemoryId(threadId, turn.turnId), text, charRange: [offset, offset + text.length] });
    offset += text.length;
  }
  return measured;
}
