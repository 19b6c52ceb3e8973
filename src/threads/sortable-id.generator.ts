import { randomFillSync } from 'node:crypto';

/** Width of the base36 millisecond timestamp: 9 digits last until the year 5188, so ids sort by creation time. */
const TIME_WIDTH = 9;
/** Random bytes per id (64 bits). */
const RANDOM_BYTES = 8;
/**
 * Random bytes are drawn from the CSPRNG a block at a time (one randomFillSync per 512 ids instead of
 * one per id: a run creates 4-5 ids). Each byte is used once; the block is filled on first use, in
 * the process that uses it, so no two processes share one.
 */
const POOL_BYTES = 512 * RANDOM_BYTES;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let poolOffset = POOL_BYTES;

/** The last timestamp encoded, and its encoding: ids come in runs within the same millisecond. */
let lastTime = Number.NaN;
let lastTimeText = '';

/**
 * `<prefix><base36 time><16 hex random>`: unique across processes without coordination (64 random
 * bits per millisecond) and sortable by creation time as plain strings.
 */
export function generateSortableId(prefix: string, now: number = Date.now()): string {
  if (now !== lastTime) {
    lastTime = now;
    lastTimeText = now.toString(36).padStart(TIME_WIDTH, '0');
  }
  if (poolOffset === POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const random = pool.toString('hex', poolOffset, poolOffset + RANDOM_BYTES);
  poolOffset += RANDOM_BYTES;
  return prefix + lastTimeText + random;
}

/** Thread ids are `ai_` followed by a unique suffix. */
export function generateThreadId(now?: number): string {
  return generateSortableId('ai_', now);
}

/** Stable message ids (later features — memory, summaries — key on them). */
export function generateMessageId(now?: number): string {
  return generateSortableId('msg_', now);
}

/** Also accepts Nodius's `ai_<timestamp>_<counter>` ids, so threads it already stored stay reachable. */
const THREAD_ID_PATTERN = /^ai_[0-9A-Za-z_-]{1,100}$/;

/** Cheap shape check: anything else cannot be a thread, so it is not found without a store read. */
export function isThreadIdShape(value: string): boolean {
  return THREAD_ID_PATTERN.test(value);
}
