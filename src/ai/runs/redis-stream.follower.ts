import type { QuietRedis } from '../../redis/redis-client';
import { Logger } from '../../observability/logger';
import { LoggedRunEvent, RunEventListener, TERMINAL_RUN_EVENTS } from './run-event.log';
import { parseStreamEntries, StreamEntry } from './redis-stream.entries';

/** How long one XREAD waits at most; after it, followed streams that disappeared are noticed. */
export const FOLLOW_BLOCK_MS = 5_000;
/** Entries read per stream and XREAD. */
const READ_COUNT = 500;
/** Reads failing in a row (each after waiting up to the block time for the connection) before the followers are lost. */
const MAX_READ_FAILURES = 3;

interface Cursor {
  /** The last seq delivered. */
  seq: number;
  readonly listener: RunEventListener;
}

const logger = new Logger('runs');

/**
 * Follows request logs (Redis Streams) live for rejoined requests: ONE blocking connection per
 * instance reads every followed stream with one XREAD BLOCK, from the lowest seq any follower of a
 * stream still needs; each follower gets the entries after its own. A follower added or removed wakes
 * the blocked read (CLIENT UNBLOCK from the command connection) so the next one has the new set. The
 * blocking connection closing (a server `timeout`, a CLIENT KILL) loses nothing: the read is made again
 * once it is back, from each follower's own seq. A stream that disappears (its request's instance died:
 * running logs expire unless refreshed) or a Redis that stays unreachable (MAX_READ_FAILURES reads in a
 * row) ends its followers with `lost`.
 */
export class RedisStreamFollower {
  private readonly cursors = new Map<string, Set<Cursor>>();
  private readingId: number | null = null;
  private reading = false;
  private blocked = false;
  private closed = false;
  private checkedAt = Date.now();

  constructor(
    /** Its own connection: a blocked XREAD holds it. */
    private readonly blocking: QuietRedis,
    private readonly commands: QuietRedis,
    private readonly blockMs = FOLLOW_BLOCK_MS,
  ) {
    blocking.on('ready', () => {
      blocking.client('ID').then(
        (id) => (this.readingId = Number(id)),
        () => (this.readingId = null),
      );
    });
  }

  /** Streams followed now. */
  get size(): number {
    return this.cursors.size;
  }

  /** Follows `key` after `seq`; returns the stop function. */
  add(key: string, seq: number, listener: RunEventListener): () => void {
    const cursor: Cursor = { seq, listener };
    let set = this.cursors.get(key);
    if (!set) {
      set = new Set();
      this.cursors.set(key, set);
    }
    set.add(cursor);
    this.changed();
    return () => {
      if (this.remove(key, cursor)) this.changed();
    };
  }

  /** Ends every follower (shutdown): no more events, no `lost`. */
  close(): void {
    this.closed = true;
    this.cursors.clear();
    this.wake();
  }

  private changed(): void {
    if (!this.reading) void this.read();
    else this.wake();
  }

  /** Ends the blocked XREAD at once (it answers as if timed out), so the loop reads the new set of streams. */
  private wake(): void {
    if (!this.blocked || this.readingId === null) return;
    this.commands.client('UNBLOCK', this.readingId).catch(() => undefined);
  }

  private async read(): Promise<void> {
    this.reading = true;
    let failures = 0;
    try {
      while (!this.closed && this.cursors.size > 0) {
        try {
          await this.readOnce();
          failures = 0;
        } catch (error) {
          failures += 1;
          if (this.closed || failures >= MAX_READ_FAILURES) throw error;
          logger.debug('run_log_follow_retried', {
            followers: this.cursors.size,
            error: error instanceof Error ? error.message : String(error),
          });
          // Its status may still say ready while the closed socket's events are pending: wait for it to come back.
          await this.nextReady();
        }
      }
    } catch (error) {
      if (!this.closed) this.loseAll(error);
    } finally {
      this.reading = false;
    }
    // Followers added while the last read was ending.
    if (!this.closed && this.cursors.size > 0) void this.read();
  }

  /** One XREAD of every followed stream, each from the lowest seq its followers still need. */
  private async readOnce(): Promise<void> {
    const keys = [...this.cursors.keys()];
    const ids = keys.map((key) => `${Math.min(...[...(this.cursors.get(key) ?? [])].map((cursor) => cursor.seq))}-0`);
    await this.whenReady();
    this.blocked = true;
    let answer: Array<[string, Array<[string, string[]]>]> | null;
    try {
      answer = await this.blocking.xread('COUNT', READ_COUNT, 'BLOCK', this.blockMs, 'STREAMS', ...keys, ...ids);
    } finally {
      this.blocked = false;
    }
    if (answer) for (const [key, entries] of answer) this.deliver(key, parseStreamEntries(entries));
    if (Date.now() - this.checkedAt >= this.blockMs) await this.dropVanished();
  }

  /**
   * The blocking connection has no offline queue (a queued XREAD would hang while Redis is down instead of
   * ending its followers): a follow that comes before it is (re)connected waits for it, `blockMs` at most.
   */
  private async whenReady(): Promise<void> {
    if (this.blocking.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.blocking.off('ready', onReady);
        reject(new Error(`the follower's Redis connection is ${this.blocking.status}`));
      }, this.blockMs);
      this.blocking.once('ready', onReady);
    });
  }

  /** Resolves on the connection's next `ready`, or after the block time. */
  private nextReady(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.blocking.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, this.blockMs);
      this.blocking.once('ready', done);
    });
  }

  private deliver(key: string, entries: StreamEntry[]): void {
    for (const cursor of [...(this.cursors.get(key) ?? [])]) {
      const events: LoggedRunEvent[] = entries.filter((entry) => entry.seq > cursor.seq);
      if (events.length === 0) continue;
      cursor.seq = events[events.length - 1].seq;
      if (events.some((event) => TERMINAL_RUN_EVENTS.has(event.event))) this.remove(key, cursor);
      cursor.listener.events(events);
    }
  }

  /** Every `blockMs`: streams that no longer exist end their followers. */
  private async dropVanished(): Promise<void> {
    this.checkedAt = Date.now();
    const keys = [...this.cursors.keys()];
    const exists = await Promise.all(keys.map((key) => this.commands.exists(key)));
    keys.forEach((key, index) => {
      if (exists[index] === 1) return;
      const cursors = [...(this.cursors.get(key) ?? [])];
      this.cursors.delete(key);
      if (cursors.length > 0) logger.warn('run_log_vanished', { followers: cursors.length });
      for (const cursor of cursors) cursor.listener.lost();
    });
  }

  private loseAll(error: unknown): void {
    const cursors = [...this.cursors.values()].flatMap((set) => [...set]);
    this.cursors.clear();
    logger.warn('run_log_follow_failed', {
      followers: cursors.length,
      error: error instanceof Error ? error.message : String(error),
    });
    for (const cursor of cursors) cursor.listener.lost();
  }

  private remove(key: string, cursor: Cursor): boolean {
    const set = this.cursors.get(key);
    if (!set?.delete(cursor)) return false;
    if (set.size === 0) this.cursors.delete(key);
    return true;
  }
}
