import { setTimeout as sleep } from 'node:timers/promises';
import { TestRedisServer } from '../../../test/support/test-redis.server';
import { RedisConnection } from '../../redis/redis-connection';
import { InMemoryThreadTurnQueue } from './in-memory-thread-turn.queue';
import { RedisThreadTurnQueue } from './redis-thread-turn.queue';
import type { ThreadTurnQueue, ThreadTurnTicket } from './thread-turn.queue';

/** Which of the tickets are first right now. */
async function firsts(tickets: ThreadTurnTicket[]): Promise<boolean[]> {
  return Promise.all(tickets.map((ticket) => ticket.isFirst()));
}

function describeLineOrder(name: string, create: () => Promise<ThreadTurnQueue>) {
  describe(`${name}: the order of a thread's line`, () => {
    it('lets the enqueued messages in the order they came, fronts (interrupt, rollback) ahead of them in their own order', async () => {
      const queue = await create();
      const first = (await queue.join('t1', 'back', 10))!;
      const second = (await queue.join('t1', 'back', 10))!;
      const front = (await queue.join('t1', 'front', 10))!;
      const laterFront = (await queue.join('t1', 'front', 10))!;
      expect(await firsts([first, second, front, laterFront])).toEqual([false, false, true, false]);
      await front.leave();
      expect(await firsts([first, second, laterFront])).toEqual([false, false, true]);
      await laterFront.leave();
      expect(await firsts([first, second])).toEqual([true, false]);
      await first.leave();
      await first.leave();
      expect(await second.isFirst()).toBe(true);
      await second.leave();
    });

    it('refuses one enqueued message more than the limit (fronts do not count), per thread', async () => {
      const queue = await create();
      const tickets = [(await queue.join('t2', 'back', 2))!, (await queue.join('t2', 'back', 2))!];
      expect(await queue.join('t2', 'back', 2)).toBeNull();
      const front = await queue.join('t2', 'front', 2);
      expect(front).not.toBeNull();
      const elsewhere = await queue.join('t3', 'back', 2);
      expect(elsewhere).not.toBeNull();
      await tickets[0].leave();
      const again = await queue.join('t2', 'back', 2);
      expect(again).not.toBeNull();
      for (const ticket of [...tickets, front!, elsewhere!, again!]) await ticket.leave();
    });
  });
}

describeLineOrder(InMemoryThreadTurnQueue.name, () => Promise.resolve(new InMemoryThreadTurnQueue()));

describe(`${RedisThreadTurnQueue.name} (a real redis-server)`, () => {
  let redis: TestRedisServer;
  const connections: RedisConnection[] = [];

  /** One "instance": its own connection and queue. */
  const instance = async (ticketTtlMs?: number) => {
    const connection = new RedisConnection(redis.url);
    connections.push(connection);
    await connection.ready(5_000);
    return new RedisThreadTurnQueue(connection, new InMemoryThreadTurnQueue(), ticketTtlMs);
  };

  beforeAll(async () => {
    redis = await TestRedisServer.start();
  });
  afterEach(() => Promise.all(connections.splice(0).map((connection) => connection.close())));
  afterAll(() => redis.stop());

  describeLineOrder('shared through Redis', () => instance());

  it('shares one line between instances: a message of B waits behind the one A enqueued first', async () => {
    const [a, b] = [await instance(), await instance()];
    const fromA = (await a.join('shared', 'back', 10))!;
    const fromB = (await b.join('shared', 'back', 10))!;
    expect(await firsts([fromA, fromB])).toEqual([true, false]);
    await fromA.leave();
    expect(await fromB.isFirst()).toBe(true);
    await fromB.leave();
    expect(redis.cli('EXISTS', 'ai:turns:{shared}')).toBe('0');
  });

  it('stops counting the ticket of an instance that died while waiting once its time to live ran out', async () => {
    const [dying, alive] = [await instance(300), await instance(300)];
    const lost = (await dying.join('orphaned', 'back', 1))!;
    expect(lost).toBeDefined();
    const waiting = (await alive.join('orphaned', 'front', 1))!;
    await waiting.leave();
    const next = await alive.join('orphaned', 'back', 1);
    // The dead instance's ticket still holds the only enqueued place, until it expires (never renewed again).
    expect(next).toBeNull();
    await sleep(400);
    const after = (await alive.join('orphaned', 'back', 1))!;
    expect(after).not.toBeNull();
    expect(await after.isFirst()).toBe(true);
    await after.leave();
  });
});
