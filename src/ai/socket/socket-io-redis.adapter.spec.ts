import { createServer, Server as HttpServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io, Socket } from 'socket.io-client';
import { TestRedisServer } from '../../../test/support/test-redis.server';
import { waitUntil } from '../../../test/support/wait-until';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { RedisConnection } from '../../redis/redis-connection';
import type { AiNamespace } from './ai-server-socket';
import { useRedisAdapter } from './socket-io-redis.adapter';

/** One "instance": a Socket.IO server whose `/ai` namespace uses the Redis adapter. */
async function instance(redisUrl: string): Promise<{ namespace: AiNamespace; url: string; close(): Promise<void> }> {
  const http: HttpServer = createServer();
  const server = new Server(http);
  const namespace = server.of('/ai') as unknown as AiNamespace;
  const connection = new RedisConnection(redisUrl);
  await connection.ready(5_000);
  useRedisAdapter(namespace, connection);
  namespace.on('connection', (socket) => void socket.join('editors'));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  await waitUntil(() => connection.isUp);
  return {
    namespace,
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    async close() {
      await server.close();
      await connection.close();
    },
  };
}

describe(`${useRedisAdapter.name} (a real redis-server)`, () => {
  let redis: TestRedisServer;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    setLogSink(() => undefined);
    redis = await TestRedisServer.start();
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    resetLogSink();
    await redis.stop();
  });

  it('delivers a room broadcast of one instance to the sockets of every instance, and carries messages between instances', async () => {
    const [a, b] = [await instance(redis.url), await instance(redis.url)];
    try {
      const received: string[] = [];
      for (const [name, server] of [
        ['on A', a],
        ['on B', b],
      ] as const) {
        const socket = io(`${server.url}/ai`, { transports: ['websocket'], forceNew: true, reconnection: false });
        sockets.push(socket);
        socket.on('ai:approval_pending', (event) => received.push(`${name}: ${event.threadId}`));
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      }
      await waitUntil(
        () =>
          a.namespace.adapter.rooms.get('editors')?.size === 1 && b.namespace.adapter.rooms.get('editors')?.size === 1,
      );

      a.namespace.to('editors').emit('ai:approval_pending', {
        threadId: 'ai_t',
        interrupt: { kind: 'question', toolCallId: 'c', questionKind: 'confirm', question: '?' },
      });
      await waitUntil(() => received.length === 2);
      expect(received.sort()).toEqual(['on A: ai_t', 'on B: ai_t']);

      b.namespace.on('ai:run_stop', (runKey, answer) => answer(runKey === 'run_1'));
      expect(await a.namespace.serverSideEmitWithAck('ai:run_stop', 'run_1')).toEqual([true]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
