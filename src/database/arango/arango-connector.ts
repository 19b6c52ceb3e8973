import { Database } from 'arangojs';
import { isArangoError } from 'arangojs/errors';
import { Logger } from '../../observability/logger';
import { ArangoConnectionError } from './arango-connection.error';
import { ARANGO_ERROR_NUM, isPermissionDenied, isStoreUnavailable } from './arango-error.translator';

const logger = new Logger('arango-store');

export interface ArangoConnectionSettings {
  url: string;
  database: string;
  user: string;
  password: string | undefined;
}

export interface ArangoRetryPolicy {
  attempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** 10 attempts, 0.5 s doubling up to 5 s between them: about 30 s for a server (or a container) to come up. */
export const DEFAULT_ARANGO_RETRY: ArangoRetryPolicy = { attempts: 10, initialDelayMs: 500, maxDelayMs: 5000 };

/**
 * Opens the configured database, waiting for the server with retries and backoff while it is
 * unreachable or answers 503 (starting), and creates the database when it does not exist yet (a fresh
 * docker-compose ArangoDB). Refused credentials or permissions fail at once (retrying cannot fix
 * them); anything else that is not an unavailability fails at once too.
 */
export class ArangoConnector {
  constructor(
    private readonly settings: ArangoConnectionSettings,
    private readonly retry: ArangoRetryPolicy = DEFAULT_ARANGO_RETRY,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  /** The delays slept between attempts, e.g. [500, 1000, 2000, 4000, 5000, …]. */
  static delays(policy: ArangoRetryPolicy): number[] {
    return Array.from({ length: Math.max(0, policy.attempts - 1) }, (_, index) =>
      Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** index),
    );
  }

  async connect(): Promise<Database> {
    const db = this.database(this.settings.database);
    const delays = ArangoConnector.delays(this.retry);
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.retry.attempts; attempt += 1) {
      try {
        await this.probe(db);
        logger.info('arango_connected', { url: this.safeUrl(), database: this.settings.database, attempt });
        return db;
      } catch (error) {
        if (isPermissionDenied(error)) {
          db.close();
          throw new ArangoConnectionError(
            `ArangoDB at ${this.safeUrl()} refused the credentials of user "${this.settings.user}" or their access to database ` +
              `"${this.settings.database}" (check ARANGO_USER / ARANGO_PASSWORD and the user's permissions)`,
            { cause: error },
          );
        }
        if (!isStoreUnavailable(error)) {
          db.close();
          if (error instanceof ArangoConnectionError) throw error;
          throw new ArangoConnectionError(`ArangoDB at ${this.safeUrl()} answered unexpectedly: ${describe(error)}`, {
            cause: error,
          });
        }
        lastError = error;
        const delay = delays[attempt - 1];
        logger.warn('arango_connect_retry', {
          url: this.safeUrl(),
          attempt,
          attempts: this.retry.attempts,
          nextDelayMs: delay ?? null,
        });
        if (delay !== undefined) await this.sleep(delay);
      }
    }
    db.close();
    const waitedSeconds = Math.round(delays.reduce((sum, delay) => sum + delay, 0) / 1000);
    throw new ArangoConnectionError(
      `ArangoDB at ${this.safeUrl()} is unreachable after ${this.retry.attempts} attempts over ${waitedSeconds} s: ${describe(lastError)}`,
      { cause: lastError },
    );
  }

  /** Reachable, credentials accepted, and the database exists (created through _system when missing). */
  private async probe(db: Database): Promise<void> {
    try {
      await db.version();
    } catch (error) {
      if (!isArangoError(error) || error.errorNum !== ARANGO_ERROR_NUM.databaseNotFound) throw error;
      await this.createDatabase();
      await db.version();
    }
  }

  private async createDatabase(): Promise<void> {
    const system = this.database('_system');
    try {
      if (!(await system.database(this.settings.database).exists())) {
        await system.createDatabase(this.settings.database);
        logger.info('arango_database_created', { database: this.settings.database });
      }
    } catch (error) {
      if (isArangoError(error) && error.errorNum === 1207) return;
      // Unreachable or starting: the caller retries. Refused (401/403): no retry can fix it.
      if (isStoreUnavailable(error)) throw error;
      throw new ArangoConnectionError(
        `Database "${this.settings.database}" does not exist and user "${this.settings.user}" cannot create it: ${describe(error)}`,
        { cause: error },
      );
    } finally {
      system.close();
    }
  }

  private database(name: string): Database {
    return new Database({
      url: this.settings.url,
      databaseName: name,
      auth: { username: this.settings.user, password: this.settings.password ?? '' },
    });
  }

  /** The URL without user info, for logs and messages. */
  private safeUrl(): string {
    try {
      const url = new URL(this.settings.url);
      url.username = '';
      url.password = '';
      return url.toString().replace(/\/$/, '');
    } catch {
      return '(invalid URL)';
    }
  }
}

/** The messages along the cause chain, deduplicated: "Fetch failed (connect ECONNREFUSED 10.0.0.5:8529)". */
function describe(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth += 1) {
    const message = current.message;
    if (message && !messages.some((seen) => seen.includes(message))) messages.push(message);
    current = (current as Error & { cause?: unknown }).cause;
  }
  if (messages.length === 0) return String(error);
  return messages.length === 1 ? messages[0] : `${messages[0]} (${messages.slice(1).join('; ')})`;
}
