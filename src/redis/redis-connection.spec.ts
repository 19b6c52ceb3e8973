import { setTimeout as sleep } from 'node:timers/promises';
import { TestRedisServer } from '../../test/support/test-redis.server';
import { waitUntil } from '../../test/support/wait-until';
import { LogEntry } from '../observability/log-entry';
import { resetLogSink, setLogSink } from '../observability/logger';
import { createRedisClient } from './redis-client';
import { RedisConnection } from './redis-connection';

describe(`${RedisConnection.name} (a real redis-server)`, () => {
  let redis: TestRedisServer;
  const logged: LogEntry[] = [];

  beforeAll(async () => {
    setLogSink((entry) => logged.push(entry));
    redis = await TestRedisServer.start();
  });
  afterAll(async () => {
    resetLogSink();
    await redis.stop();
  });

  it('is up while the command connection works, down with the reason while Redis is gone, and up again by itself', async () => {
    const connection = new RedisConnection(redis.url);
    const changes: boolean[] = [];
    connection.onStateChange((up) => changes.push(up));
    try {
      expect(await connection.ready(5_000)).toBe(true);
      const subscriber = connection.client({ role: 'spec-sub', offlineQueue: true });
      await waitUntil(() => subscriber.status === 'ready');
      expect(await connection.health()).toEqual({ status: 'up' });

      await redis.kill();
      await waitUntil(() => !connection.isUp);
      expect(await connection.health()).toEqual({ status: 'down', detail: expect.any(String) });
      expect(logged.map((entry) => entry.event)).toContain('redis_down');

      await redis.restart();
      await waitUntil(() => connection.isUp, 10_000);
      expect(await connection.health()).toEqual({ status: 'up' });
      expect(changes).toEqual([true, false, true]);
      expect(logged.filter((entry) => entry.event === 'redis_up')).toHaveLength(2);
    } finally {
      await connection.close();
    }
  });

  it('stays up when the server closes idle connections (`timeout`) or an operator kills one: each reconnects quietly', async () => {
    const connection = new RedisConnection(redis.url);
    const changes: boolean[] = [];
    connection.onStateChange((up) => changes.push(up));
    const downsBefore = logged.filter((entry) => entry.event === 'redis_down').length;
    const subscriber = connection.client({ role: 'spec-idle-sub', offlineQueue: true });
    const idle = connection.client({ role: 'spec-idle' });
    const received: string[] = [];
    subscriber.on('message', (_channel: string, message: string) => received.push(message));
    let closes = 0;
    for (const client of [connection.commands, idle]) client.on('close', () => closes++);
    try {
      expect(await connection.ready(5_000)).toBe(true);
      await subscriber.subscribe('graph-ai:spec-idle');
      await waitUntil(() => idle.status === 'ready');
      redis.cli('CONFIG', 'SET', 'timeout', '1');
      await waitUntil(() => closes >= 2, 5_000, 'the idle connections closed by the server');
      redis.cli('CLIENT', 'KILL', 'TYPE', 'pubsub');
      redis.cli('CLIENT', 'KILL', 'TYPE', 'normal');
      await waitUntil(() => connection.commands.status === 'ready' && subscriber.status === 'ready');
      expect(connection.isUp).toBe(true);
      expect(changes).toEqual([true]);
      expect(logged.filter((entry) => entry.event === 'redis_down')).toHaveLength(downsBefore);
      for (let attempt = 0; attempt < 50 && !received.includes('after'); attempt++) {
        await connection.commands.publish('graph-ai:spec-idle', 'after');
        await sleep(20);
      }
      expect(received).toContain('after');
    } finally {
      redis.cli('CONFIG', 'SET', 'timeout', '0');
      await connection.close();
    }
  });

  it('sends a command again once the command connection is back when it was caught by a reconnection, and throws a refusal at once', async () => {
    const connection = new RedisConnection(redis.url);
    try {
      expect(await connection.ready(5_000)).toBe(true);
      const id = String(await connection.commands.client('ID'));
      const closed = new Promise((resolve) => connection.commands.once('close', resolve));
      redis.cli('CLIENT', 'KILL', 'ID', id);
      await closed; // reconnecting: a command sent now cannot be written
      const direct = connection.commands.set('spec:direct', '1');
      const retried = connection.acrossReconnection(() => connection.commands.set('spec:retried', '1'));
      await expect(direct).rejects.toThrow(/enableOfflineQueue/);
      await expect(retried).resolves.toBe('OK');
      expect(redis.cli('GET', 'spec:retried')).toBe('1');
      const started = Date.now();
      await expect(connection.acrossReconnection(() => connection.commands.call('NO-SUCH-COMMAND'))).rejects.toThrow(
        /unknown command/,
      );
      expect(Date.now() - started).toBeLessThan(500);
    } finally {
      await connection.close();
    }
  });

  it('keeps its connections alive with a PING, so an idle timeout longer than the keep-alive never closes them', async () => {
    const connection = new RedisConnection(redis.url, { keepAliveMs: 300 });
    const idle = connection.client({ role: 'spec-kept' });
    let closes = 0;
    for (const client of [connection.commands, idle]) client.on('close', () => closes++);
    try {
      expect(await connection.ready(5_000)).toBe(true);
      await waitUntil(() => idle.status === 'ready');
      redis.cli('CONFIG', 'SET', 'timeout', '1');
      await sleep(2_500);
      expect(closes).toBe(0);
    } finally {
      redis.cli('CONFIG', 'SET', 'timeout', '0');
      await connection.close();
    }
  });

  it('never turns a command nobody awaits into an unhandled rejection while Redis is down (the Socket.IO adapter publishes so)', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const client = createRedisClient('redis://127.0.0.1:1', { role: 'spec-nowhere' });
    client.on('error', () => undefined);
    try {
      void client.publish('graph-ai:spec', 'lost');
      await expect(client.get('key')).rejects.toThrow();
      await sleep(50);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      client.disconnect();
    }
  });
});
