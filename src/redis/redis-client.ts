import Redis, { type RedisOptions } from 'ioredis';
import type { Command } from 'ioredis';

/** Reconnection back-off: 100 ms, 200 ms, … capped at 2 s, forever (Redis may be down for a while; we keep serving). */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(attempt * 100, 2_000);
}

/**
 * An ioredis client whose commands never become unhandled rejections. The Socket.IO Redis adapter
 * publishes without awaiting (and without a catch) and so would crash the process the first time a
 * publish fails while Redis is down (ioredis's "Connection is closed", or a refused command with the
 * offline queue off); the same holds for the commands queued when a client quits at shutdown. Marking
 * each command's promise as handled keeps the rejection for whoever awaits it (our own callers always
 * do) and drops it for fire-and-forget callers: while Redis is down, what they publish is lost, which
 * is the degraded single-instance mode (docs/deployment.md, "Redis down").
 */
export class QuietRedis extends Redis {
  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    const result = super.sendCommand(command, stream);
    command.promise.catch(() => undefined);
    return result;
  }
}

export interface RedisClientOptions {
  /** Shown by CLIENT LIST (`graph-ai:<role>`), so an operator can tell the connections apart. */
  role: string;
  /**
   * Queue commands while disconnected and send them on reconnection (subscribers: their SUBSCRIBE must
   * survive a start while Redis is down). Off (the default), a command fails at once while Redis is
   * down, so a caller falls back to its single-instance behaviour instead of waiting.
   */
  offlineQueue?: boolean;
}

/** A client of `url` that reconnects by itself, forever, and never crashes the process (QuietRedis). */
export function createRedisClient(url: string, options: RedisClientOptions): QuietRedis {
  const settings: RedisOptions = {
    connectionName: `graph-ai:${options.role}`,
    enableOfflineQueue: options.offlineQueue ?? false,
    // A queued command waits for the reconnection instead of failing after N attempts (offline queue only).
    maxRetriesPerRequest: options.offlineQueue ? null : 1,
    retryStrategy: reconnectDelayMs,
    connectTimeout: 2_000,
    lazyConnect: false,
  };
  return new QuietRedis(url, settings);
}
