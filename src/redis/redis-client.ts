import Redis, { type RedisOptions } from 'ioredis';
import type { Command } from 'ioredis';

/**
 * Reconnection back-off: at once (a connection closed by the server's idle `timeout` or a CLIENT KILL is back
 * within a round trip), then 100 ms, 200 ms, … capped at 2 s, forever (Redis may be down for a while; we keep serving).
 */
export function reconnectDelayMs(attempt: number): number {
  return Math.min((attempt - 1) * 100, 2_000);
}

/** A connection that meets READONLY reconnects at most this often (a replica keeps answering READONLY). */
export const READONLY_RECONNECT_INTERVAL_MS = 2_000;

/**
 * `reconnectOnError` for READONLY: after a failover the old primary's address may now be a replica, and a new
 * connection (through the DNS name or the proxy of a managed Redis) reaches the new primary. The failed command
 * is rejected (its caller falls back as for any refused write), never resent. Throttled, so a Redis that stays a
 * replica does not make the connection reconnect in a loop.
 */
export function readOnlyReconnect(clock: () => number = Date.now): (error: Error) => boolean {
  let last = -Infinity;
  return (error) => {
    if (!error.message.startsWith('READONLY')) return false;
    const now = clock();
    if (now - last < READONLY_RECONNECT_INTERVAL_MS) return false;
    last = now;
    return true;
  };
}

/**
 * An ioredis client whose commands never become unhandled rejections, and whose subscriptions survive
 * every reconnection.
 *
 * The Socket.IO Redis adapter publishes without awaiting (and without a catch) and so would crash the
 * process the first time a publish fails while Redis is down (ioredis's "Connection is closed", or a
 * refused command with the offline queue off); the same holds for the commands queued when a client
 * quits at shutdown. Marking each command's promise as handled keeps the rejection for whoever awaits it
 * (our own callers always do) and drops it for fire-and-forget callers: while Redis is down, what they
 * publish is lost, which is the degraded single-instance mode.
 *
 * ioredis resubscribes by itself after a reconnection, but a connection closed again while that
 * SUBSCRIBE is in flight comes back with no subscription and no error (seen with two CLIENT KILLs in a
 * row). So every channel and pattern subscribed through this client is subscribed again on each
 * `ready`; a SUBSCRIBE of a channel already subscribed changes nothing on the server.
 */
export class QuietRedis extends Redis {
  private readonly subscribed = { subscribe: new Set<string>(), psubscribe: new Set<string>() };

  constructor(url: string, options: RedisOptions) {
    super(url, options);
    this.on('ready', () => this.subscribeAgain());
  }

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    this.track(command);
    const result = super.sendCommand(command, stream);
    command.promise.catch(() => undefined);
    return result;
  }

  private track(command: Command): void {
    const set =
      command.name === 'subscribe' || command.name === 'unsubscribe'
        ? this.subscribed.subscribe
        : command.name === 'psubscribe' || command.name === 'punsubscribe'
          ? this.subscribed.psubscribe
          : null;
    if (!set) return;
    const names = command.args.map(String);
    if (command.name.endsWith('unsubscribe')) {
      if (names.length === 0) set.clear();
      for (const name of names) set.delete(name);
    } else {
      for (const name of names) set.add(name);
    }
  }

  private subscribeAgain(): void {
    const { subscribe, psubscribe } = this.subscribed;
    if (subscribe.size > 0) this.subscribe(...subscribe).catch(() => undefined);
    if (psubscribe.size > 0) this.psubscribe(...psubscribe).catch(() => undefined);
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
    reconnectOnError: readOnlyReconnect(),
    connectTimeout: 2_000,
    lazyConnect: false,
  };
  return new QuietRedis(url, settings);
}
