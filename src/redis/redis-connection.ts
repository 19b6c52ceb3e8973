import { Logger } from '../observability/logger';
import { createRedisClient, QuietRedis, RedisClientOptions } from './redis-client';

/** What /health reports of Redis (docs/deployment.md, "Health and readiness"). */
export interface RedisHealth {
  status: 'up' | 'down';
  detail?: string;
}

export type RedisStateListener = (up: boolean) => void;

/** How long a health PING may take before Redis counts as down. */
const PING_TIMEOUT_MS = 1_000;
/** How long a connection may take to QUIT at shutdown before it is cut. */
const QUIT_TIMEOUT_MS = 1_000;

const logger = new Logger('redis');

/**
 * This instance's connections to REDIS_URL (one per role: commands, pub/sub, blocking stream reads),
 * each reconnecting by itself, forever. It is up while EVERY connection (once opened) is ready: sharing
 * is only whole once the subscribers are back too; down as soon as one is lost; users subscribe to its changes to
 * fall back to their single-instance behaviour while Redis is down and to take up sharing again when it
 * is back (docs/deployment.md, "Redis down"). Every connection is closed at application shutdown, after
 * the transports (the Socket.IO adapter unsubscribes first). Only built when REDIS_URL is set: without
 * it nothing of this module runs.
 */
export class RedisConnection {
  /** Commands of every user (offline queue off: a command fails at once while Redis is down). */
  readonly commands: QuietRedis;
  private readonly clients: QuietRedis[] = [];
  /** The connections that were ready at least once. */
  private readonly connected = new Set<QuietRedis>();
  private readonly listeners = new Set<RedisStateListener>();
  private up = false;
  private lastError: string | undefined;

  constructor(private readonly url: string) {
    this.commands = this.client({ role: 'commands' });
  }

  /** True while every connection is ready. */
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
    // A connection counts once it was ready a first time: one being opened does not make Redis look down.
    client.once('ready', () => this.connected.add(client));
    client.on('ready', () => this.setUp([...this.connected].every((each) => each.status === 'ready')));
    client.on('close', () => this.setUp(false));
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

  /** Resolves once every connection is ready, or false after `timeoutMs`. */
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

  /** QUIT each connection (what was sent is answered first); one that does not answer in time (a blocked read) is cut. */
  async close(): Promise<void> {
    this.listeners.clear();
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

  private setUp(up: boolean): void {
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
