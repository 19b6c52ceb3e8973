import { createHash } from 'node:crypto';
import type { MemoryLevel } from './memory-record';

/**
 * Memory ids are derived from what a record covers, so that the same record written twice (a retry,
 * or two instances reconciling one thread) is stored once: `mem<level>_<32 hex digits>` of SHA-256
 * over the thread id and the turn (level 0) or the character range (summaries). Valid ArangoDB keys.
 */
export function turnMemoryId(threadId: string, turnId: string): string {
  return `mem0_${digest([threadId, turnId])}`;
}

export function summaryMemoryId(
  level: Exclude<MemoryLevel, 0>,
  threadId: string,
  charRange: readonly [number, number],
): string {
  return `mem${level}_${digest([threadId, String(level), String(charRange[0]), String(charRange[1])])}`;
}

function digest(parts: string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}
