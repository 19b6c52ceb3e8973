import { randomUUID } from 'node:crypto';
import { Logger } from '../../observability/logger';
import type { QuietRedis } from '../../redis/redis-client';
import type { RedisConnection } from '../../redis/redis-connection';
import { InMemoryThreadTurnQueue } from './in-memory-thread-turn.queue';
import type { ThreadTurnPlace, ThreadTurnQueue, ThreadTurnTicket } from './thread-turn.queue';

/** A ticket not renewed for this long is a dead instance's: the others skip it. */
export const TICKET_TTL_MS = 10_000;
/** How long a thread's line and its counter stay after their last change (a line is short-lived). */
const LINE_TTL_MS = 24 * 3_600_000;
/** Fronts sort before every back: their score is their arrival number minus this. */
const FRONT_OFFSET = 1e15;

const logger = new Logger('runs');

/**
 * KEYS: the line (a sorted set of ticket ids by arrival), its arrival counter. ARGV: the ticket id, its place, the
 * most enqueued tickets allowed, the liveness key prefix, the ticket's time to live, the line's. Tickets whose
 * liveness key expired (their instance died) are dropped first. Returns 1 when the ticket joined, 0 when the line is
 * full.
 */
const JOIN_SCRIPT = `
local prefix = ARGV[4]
local backs = 0
for _, ticket in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if redis.call('EXISTS', prefix .. ticket) == 0 then
    redis.call('ZREM', KEYS[1], ticket)
  elseif string.sub(ticket, 1, 2) == 'b:' then
    backs = backs + 1
  end
end
if ARGV[2] == 'back' and backs >= tonumber(ARGV[3]) then return 0 end
local arrival = redis.call('INCR', KEYS[2])
local score = arrival
if ARGV[2] == 'front' then score = arrival - ${FRONT_OFFSET} end
redis.call('ZADD', KEYS[1], score, ARGV[1])
redis.call('SET', prefix .. ARGV[1], '1', 'PX', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return 1
`;

/**
 * KEYS: the line. ARGV: the ticket id, the liveness key prefix, the ticket's time to live. Renews the ticket, drops
 * dead tickets ahead of it, and returns 1 when it is first, 0 when another is, -1 when it is no longer in the line
 * (its instance stalled past its time to live and another dropped it).
 */
const FIRST_SCRIPT = `
local prefix = ARGV[2]
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == false then return -1 end
redis.call('SET', prefix .. ARGV[1], '1', 'PX', ARGV[3])
while true do
  local head = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if head == ARGV[1] then return 1 end
  if redis.call('EXISTS', prefix .. head) == 1 then return 0 end
  redis.call('ZREM', KEYS[1], head)
end
`;

interface TurnScripts {
  threadTurnJoin(
    line: string,
    counter: string,
    ticket: string,
    place: ThreadTurnPlace,
    maxWaiting: number,
    prefix: string,
    ticketTtlMs: number,
    lineTtlMs: number,
  ): Promise<number>;
  threadTurnFirst(line: string, ticket: string, prefix: string, ticketTtlMs: number): Promise<number>;
}

/**
 * The threads' lines in Redis, one sorted set per thread, shared by every instance (REDIS_URL), with the same
 * order as the in-memory one. Each ticket has a liveness key its instance renews while it waits (every isFirst, a
 * few times a second): a ticket of an instance killed while waiting expires after TICKET_TTL_MS and stops holding
 * up the line. While Redis is down a message waits in this instance's line (each instance serves alone; the lease
 * still keeps one run per thread); a ticket whose Redis call fails counts as first, and its message takes the lease
 * when it can.
 */
export class RedisThreadTurnQueue implements ThreadTurnQueue {
  private readonly redis: QuietRedis & TurnScripts;

  constructor(
    private readonly connection: Pick<RedisConnection, 'isUp' | 'commands'>,
    private readonly local = new InMemoryThreadTurnQueue(),
    private readonly ticketTtlMs = TICKET_TTL_MS,
  ) {
    this.redis = connection.commands as QuietRedis & TurnScripts;
    this.redis.defineCommand('threadTurnJoin', { numberOfKeys: 2, lua: JOIN_SCRIPT });
    this.redis.defineCommand('threadTurnFirst', { numberOfKeys: 1, lua: FIRST_SCRIPT });
  }

  async join(threadId: string, place: ThreadTurnPlace, maxWaiting: number): Promise<ThreadTurnTicket | null> {
    if (!this.connection.isUp) return this.local.join(threadId, place, maxWaiting);
    const keys = lineKeys(threadId);
    let ticket = `${place === 'back' ? 'b' : 'f'}:${randomUUID()}`;
    try {
      if (!(await this.enter(keys, ticket, place, maxWaiting))) return null;
    } catch (error) {
      logger.warn('thread_turn_queue_unavailable', { threadId, error: describe(error) });
      return this.local.join(threadId, place, maxWaiting);
    }
    let left = false;
    return {
      isFirst: async () => {
        if (left) return false;
        try {
          const first = await this.redis.threadTurnFirst(keys.line, ticket, keys.prefix, this.ticketTtlMs);
          if (first !== -1) return first === 1;
          // Dropped while this instance stalled: back in line, at the end of its place.
          ticket = `${place === 'back' ? 'b' : 'f'}:${randomUUID()}`;
          await this.enter(keys, ticket, place, Number.MAX_SAFE_INTEGER);
          return false;
        } catch (error) {
          logger.warn('thread_turn_queue_unavailable', { threadId, error: describe(error) });
          return true;
        }
      },
      leave: async () => {
        if (left) return;
        left = true;
        await this.redis
          .multi()
          .zrem(keys.line, ticket)
          .del(`${keys.prefix}${ticket}`)
          .exec()
          .catch(() => undefined);
      },
    };
  }

  private async enter(keys: LineKeys, ticket: string, place: ThreadTurnPlace, maxWaiting: number): Promise<boolean> {
    const joined = await this.redis.threadTurnJoin(
      keys.line,
      keys.counter,
      ticket,
      place,
      maxWaiting,
      keys.prefix,
      this.ticketTtlMs,
      LINE_TTL_MS,
    );
    return joined === 1;
  }
}

interface LineKeys {
  line: string;
  counter: string;
  /** Of the tickets' liveness keys. */
  prefix: string;
}

/** One hash tag per thread: its keys live on one slot of a Redis Cluster. */
function lineKeys(threadId: string): LineKeys {
  return {
    line: `ai:turns:{${threadId}}`,
    counter: `ai:turns:{${threadId}}:arrivals`,
    prefix: `ai:turns:{${threadId}}:live:`,
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
