import { createAdapter } from '@socket.io/redis-adapter';
import type { RedisConnection } from '../../redis/redis-connection';
import type { AiNamespace } from './ai-server-socket';

/** Channel prefix of the adapter's messages on Redis. */
export const SOCKET_IO_REDIS_KEY = 'graph-ai:socket.io';
/** How long a request to the other instances (serverSideEmitWithAck, fetchSockets) waits for their answers. */
const REQUESTS_TIMEOUT_MS = 2_000;

/**
 * Socket.IO's Redis adapter on the server of `namespace`:
 * rooms and broadcasts reach the sockets of every instance, and the instances talk to each other
 * (serverSideEmit: RunControl). Its own publishing and subscribing connections: the subscriber queues its
 * SUBSCRIBE while Redis is down and resubscribes after each reconnection; the publisher fails at once
 * while Redis is down (what is published then is lost: each instance serves alone until Redis is back).
 */
export function useRedisAdapter(namespace: AiNamespace, connection: RedisConnection): void {
  const publisher = connection.client({ role: 'socket.io-pub' });
  const subscriber = connection.client({ role: 'socket.io-sub', offlineQueue: true });
  namespace.server.adapter(
    createAdapter(publisher, subscriber, { key: SOCKET_IO_REDIS_KEY, requestsTimeout: REQUESTS_TIMEOUT_MS }),
  );
}
