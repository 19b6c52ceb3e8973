import { Logger } from '../observability/logger';
import { createRedisClient, QuietRedis, RedisClientOptions } from './redis-client';

/** What /health reports of Redis. */
export interface RedisHealth {
  status: 'up' | 'down';
  detail?: string;
}

export type RedisStateListener = (up: boolean) => void;

export interface RedisConnectionTimings {
  /** How long the command connection may be away before Redis counts as down (a failed reconnection counts at once). */
  downAfterMs: number;
  /** How often every connection that is not a subscriber sends a PING, so a server `timeout` rarely closes it. */
  keepAliveMs: number;
}

export const DEFAULT_REDIS_CONNECTION_TIMINGS: RedisConnectionTimings = Object.freeze({
  downAfterMs: 1_000,
  keepAliveMs: 10_000,
});

/** How long a health PING may take before Redis counts as down. */
const PING_TIMEOUT_MS = 1_000;
/** How long a connection may take to QUIT at shutdown before it is cut. */
const QUIT_TIMEOUT_MS = 1_000;

const logger = new Logger('redis');

/**
 * This instance's connections to REDIS_URL (one per role: commands, pub/sub, blocking stream reads),
 * each reconnecting by itself, forever. Whether Redis is up is decided by the COMMAND connection alone:
 * it is down once that connection's reconnection fails (an error), or it has not come back within `downAfterMs`
 * (a Redis gone, or unreachable); a connection the server closed because it was idle (`timeout`), or that
 * an operator killed, reconnects at once and changes nothing. The other connections reconnect quietly
 * (subscribers resubscribe; their users resynchronise on their own `ready`). Every connection but the
 * subscribers PINGs every `keepAliveMs`, so a managed Redis's idle `timeout` seldom closes one. Users
 * subscribe to the state to fall back to their single-instance behaviour while Redis is down and to take
 * sharing up again when it is back. Every connection is closed at
 * application shutdown, after the transports. Only built when REDIS_URL is set.
 */
export class RedisConnection {
  /** Commands of every user (offline queue off: a command fails at once while Redis is down). */
  readonly commands: QuietRedis;
  private readonly clients: QuietRedis[] = [];
  private readonly listeners = new Set<RedisStateListener>();
  private readonly timings: RedisConnectionTimings;
  private readonly keepAlive: NodeJS.Timeout;
  private up = false;
  /** The command connection closed while up: Redis is down unless it is back within downAfterMs. */
  private downTimer: NodeJS.Timeout | undefined;
  private lastError: string | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    timings: Partial<RedisConnectionTimings> = {},
  ) {
    this.timings = { ...DEFAULT_REDIS_CONNECTION_TIMINGS, ...timings };
    this.commands = this.client({ role: 'commands' });
    this.commands.on('ready', () => this.setUp(true));
    this.commands.on('close', () => this.commandConnectionClosed());
    // A reconnection that cannot connect (refused, unreachable, timed out): Redis is down, no need to wait.
    this.commands.on('error', (error: Error) => {
      if (this.downTimer !== undefined && isConnectFailure(error)) this.setUp(false);
    });
    this.keepAlive = setInterval(() => this.ping(), this.timings.keepAliveMs);
    this.keepAlive.unref();
  }

  /** True while the command connection works (or is reconnecting since less than downAfterMs). */
  get isUp(): boolean {
    return this.up;
  }

  /** Another connection (subscribers and blocking readers need their own), closed with the others. */
  client(options: RedisClientOptions): QuietRedis {
    const client = createRedisClient(this.url, options);
    client.on('error', (error: Error) => {
      // ioredis emits an error per failed attempt; the state change is logged once, by setUp.
      this.lastError = error.message;
    });
    this.clients.push(client);
    return client;
  }

  /** Called with true when Redis becomes reachable again, false when it is lost. Returns the unsubscribe. */
  onStateChange(listener: RedisStateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A PING with a short timeout. */
  async health(): Promise<RedisHealth> {
    if (!this.up) return { status: 'down', detail: this.lastError ?? 'not connected' };
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer to PING within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
      });
      await Promise.race([this.commands.ping(), timeout]);
      return { status: 'up' };
    } catch (error) {
      return { status: 'down', detail: error instanceof Error ? error.message : String(error) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Resolves once the command connection is ready, or false after `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean> {
    if (this.up) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        stop();
        resolve(false);
      }, timeoutMs);
      const stop = this.onStateChange((up) => {
        if (!up) return;
        clearTimeout(timer);
        stop();
        resolve(true);
      });
    });
  }

  /**
   * Runs a command of the command connection, and again after a reconnection when it failed on the
   * connection (closing or reconnecting: an idle `timeout`, a CLIENT KILL, the reconnection on READONLY),
   * waiting for it at most downAfterMs, twice at most. A refusal by Redis itself (a reply error: OOM,
   * READONLY, a script error), a Redis already known to be down and a connection that does not come back
   * are thrown. Only for commands whose
   * second run changes nothing more than the first (one that failed on the connection may have run).
   */
  async acrossReconnection<T>(run: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        if (isReplyError(error) || !this.up || attempt > 2 || !(await this.commandConnectionBack())) throw error;
      }
    }
  }

  /** QUIT each connection (what was sent is answered first); one that does not answer in time (a blocked read) is cut. */
  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    clearInterval(this.keepAlive);
    clearTimeout(this.downTimer);
    await Promise.all(
      this.clients.map(async (client) => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, QUIT_TIMEOUT_MS)));
        await Promise.race([client.quit().catch(() => undefined), late]);
        clearTimeout(timer);
        client.disconnect();
      }),
    );
  }

  /** A close of a working connection waits for the reconnection (at once, see reconnectDelayMs) up to downAfterMs. */
  private commandConnectionClosed(): void {
    if (!this.up || this.downTimer !== undefined || this.closed) return;
    this.downTimer = setTimeout(() => this.setUp(false), this.timings.downAfterMs);
    this.downTimer.unref();
  }

  /** The command connection's next `ready` (a status still `ready` may be a socket closing: its events are pending). */
  private commandConnectionBack(): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (back: boolean) => {
        clearTimeout(timer);
        this.commands.off('ready', onReady);
        resolve(back);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), this.timings.downAfterMs);
      this.commands.once('ready', onReady);
    });
  }

  /** Connections that are ready and not subscribed (a subscriber is exempt from the server's `timeout`). */
  private ping(): void {
    for (const client of this.clients) {
      if (client.status === 'ready' && client.mode === 'normal') client.ping().catch(() => undefined);
    }
  }

  private setUp(up: boolean): void {
    clearTimeout(this.downTimer);
    this.downTimer = undefined;
    if (this.up === up) return;
    this.up = up;
    if (up) logger.info('redis_up', {});
    else logger.warn('redis_down', { detail: this.lastError ?? 'connection closed' });
    for (const listener of [...this.listeners]) {
      try {
        listener(up);
      } catch (error) {
        logger.error('redis_state_listener_failed', {
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        });
      }
    }
  }
}

function isConnectFailure(error: Error): boolean {
  const { code, syscall } = error as NodeJS.ErrnoException;
  return syscall === 'connect' || syscall === 'getaddrinfo' || code === 'ECONNREFUSED' || code === 'ENOTFOUND';
}

function isReplyError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError';
}
