import { randomBytes } from 'node:crypto';
import { Database } from 'arangojs';
import { ArangoConnector } from '../../src/database/arango/arango-connector';

export interface ArangoTestDatabase {
  /** Connected as the service connects (ArangoConnector): created on first use. */
  db: Database;
  /** Closes the connection and drops the database. */
  drop(): Promise<void>;
}

/** A fresh database named `<prefix>_<time>_<random>` on the test server, for one suite. */
export async function openArangoTestDatabase(
  settings: { url: string; user: string; password: string | undefined },
  prefix: string,
): Promise<ArangoTestDatabase> {
  const database = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const db = await new ArangoConnector(
    { ...settings, database },
    { attempts: 3, initialDelayMs: 200, maxDelayMs: 1000 },
  ).connect();
  return {
    db,
    async drop() {
      db.close();
      const system = new Database({
        url: settings.url,
        databaseName: '_system',
        auth: { username: settings.user, password: settings.password ?? '' },
      });
      try {
        await system.dropDatabase(database).catch(() => false);
      } finally {
        system.close();
      }
    },
  };
}
