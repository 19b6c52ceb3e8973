import { randomBytes } from 'node:crypto';

/** Width of the base36 millisecond timestamp: 9 digits last until the year 5188, so ids sort by creation time. */
const TIME_WIDTH = 9;

/**
 * `<prefix><base36 time><16 hex random>`: unique across processes without coordination (64 random
 * bits per millisecond) and sortable by creation time as plain strings.
 */
export function generateSortableId(prefix: string, now: number = Date.now()): string {
  return `${prefix}${now.toString(36).padStart(TIME_WIDTH, '0')}${randomBytes(8).toString('hex')}`;
}

/** Thread ids are `ai_` followed by a unique suffix (PROTOCOL.md §3). */
export function generateThreadId(now?: number): string {
  return generateSortableId('ai_', now);
}

/** Stable message ids (later features — memory, summaries — key on them). */
export function generateMessageId(now?: number): string {
  return generateSortableId('msg_', now);
}

/** Also accepts the seed's `ai_<timestamp>_<counter>` ids, so threads already stored by Nodius stay reachable. */
const THREAD_ID_PATTERN = /^ai_[0-9A-Za-z_-]{1,100}$/;

/** Cheap shape check: anything else cannot be a thread, so it is not found without a store read. */
export function isThreadIdShape(value: string): boolean {
  return THREAD_ID_PATTERN.test(value);
}
