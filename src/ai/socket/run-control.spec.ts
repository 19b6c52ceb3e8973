import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Server } from 'socket.io';
import { TestRedisServer } from '../../../test/support/test-redis.server';
import { waitUntil } from '../../../test/support/wait-until';
import { loadAppConfig } from '../../config/load-app-config';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { RedisConnection } from '../../redis/redis-connection';
import { ActiveRunRegistry } from '../runs/active-run.registry';
import type { AiNamespace } from './ai-server-socket';
import { RunControl } from './run-control';
import { useRedisAdapter } from './socket-io-redis.adapter';

const config = loadAppConfig({ NODE_ENV: 'test', AUTH_MODE: 'none', AI_DISCONNECT_POLICY: 'abort' });
const timings = { ttlMs: 400, renewMs: 100 };

/** One "instance": its registry and RunControl, talking to the others through a Socket.IO server on the Redis adapter. */
async function instance(redisUrl: string) {
  const server = new Server(createServer());
  const namespace = server.of('/ai') as unknown as AiNamespace;
  const connection = new RedisConnection(redisUrl);
  await connection.ready(5_000);
  useRedisAdapter(namespace, connection);
  const runs = new ActiveRunRegistry(config);
  const control = new RunControl(runs, connection, timings);
  control.listen(namespace);
  return {
    runs,
    control,
    /** Dies: no unwatch is ever sent, no renewal either. */
    async die() {
      control.onApplicationShutdown();
      await server.close();
      await connection.close();
    },
  };
}

describe(`${RunControl.name} (two instances on a real redis-server)`, () => {
  let redis: TestRedisServer;

  beforeAll(async () => {
    setLogSink(() => undefined);
    redis = await TestRedisServer.start();
  });
  afterAll(async () => {
    resetLogSink();
    await redis.stop();
  });

  it('keeps a run alive while a socket of another instance watches it, and applies AI_DISCONNECT_POLICY once that instance dies', async () => {
    const [a, b] = [await instance(redis.url), await instance(redis.url)];
    try {
      const run = a.runs.begin('socket-on-a', 1, { threadId: 'ai_t', tokensStreamed: 0 })!;
      b.control.watch(run.runKey, 'socket-on-b'); // a rejoin on B
      await sleep(150); // the watch reached A
      a.runs.leave('socket-on-a'); // the run's own socket left; B's socket still watches
      await sleep(timings.ttlMs * 3); // renewed all along
      expect(run.signal.aborted).toBe(false);

      await b.die();
      await waitUntil(() => run.stopReason !== null, 5_000, 'the run stopped after its watcher lapsed');
      expect(run.stopReason).toBe('client_disconnect');
    } finally {
      await a.die();
    }
  });

  it('forgets a watch once its socket stopped watching: nothing is renewed for it', async () => {
    const [a, b] = [await instance(redis.url), await instance(redis.url)];
    try {
      const run = a.runs.begin('socket-on-a', 1, { threadId: 'ai_t', tokensStreamed: 0 })!;
      b.control.watch(run.runKey, 'socket-on-b');
      await sleep(150);
      b.control.unwatch(run.runKey, 'socket-on-b');
      await sleep(150);
      a.runs.leave('socket-on-a');
      expect(run.stopReason).toBe('client_disconnect');
    } finally {
      await Promise.all([a.die(), b.die()]);
    }
  });
});
