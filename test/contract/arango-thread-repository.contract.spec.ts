import { randomBytes } from 'node:crypto';
import { Database } from 'arangojs';
import { ArangoConnector } from '../../src/database/arango/arango-connector';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { ArangoThreadRepository } from '../../src/threads/arango/arango-thread.repository';
import { arangoTestConnection } from '../support/arango-test.connection';
import { closedPortUrl } from '../support/fake-arango.server';
import { describeThreadRepositoryContract } from './thread-repository.contract';

/**
 * The ThreadRepository contract on a real ArangoDB, when ARANGO_URL is set (docker-compose provides one:
 * `docker compose up -d arangodb`, then ARANGO_URL=http://127.0.0.1:8529 ARANGO_PASSWORD=… npx jest test/contract).
 * The run gets a fresh database (created by the connector, schema ensured by the repository), shared
 * by its tests (each works in its own workspace and threads), dropped at the end.
 * Without ARANGO_URL the suite is reported as skipped, with the reason in its title.
 */
const arango = arangoTestConnection();

if (arango) {
  const { url, user, password } = arango;
  const database = `thread_ai_contract_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  let opened: Promise<{ db: Database; repository: ArangoThreadRepository }> | undefined;

  const open = () =>
    (opened ??= (async () => {
      const db = await new ArangoConnector({ url, user, password, database }, { attempts: 3, initialDelayMs: 200, maxDelayMs: 1000 }).connect();
      return { db, repository: await ArangoThreadRepository.open(db) };
    })());

  beforeAll(() => setLogSink(() => undefined));
  afterAll(async () => {
    resetLogSink();
    (await opened?.catch(() => undefined))?.db.close();
    const system = new Database({ url, databaseName: '_system', auth: { username: user, password: password ?? '' } });
    try {
      await system.dropDatabase(database).catch(() => false);
    } finally {
      system.close();
    }
  });

  describeThreadRepositoryContract(ArangoThreadRepository.name, async () => ({
    repository: (await open()).repository,
    close: async () => undefined, // the run's connection and database are released once, after all tests
  }));
} else {
  // A file whose tests are all skipped is silent in jest's output; the running test below makes the
  // skip, and its reason, appear in the report.
  describe(`${ArangoThreadRepository.name} (ThreadRepository contract) [skipped: ARANGO_URL not set]`, () => {
    // Skipped on purpose: the contract needs a real ArangoDB server (ARANGO_URL), which CI machines do not have;
    // jest's summary then lists this test by name (test/support/skipped-tests.reporter.js).
    it.skip('runs the ThreadRepository contract against ArangoDB when ARANGO_URL is set', () => undefined);

    it('without a reachable server, opening the repository fails with a clear error instead of hanging', async () => {
      setLogSink(() => undefined);
      const db = new Database({ url: await closedPortUrl(), databaseName: 'nodius' });
      try {
        await expect(ArangoThreadRepository.open(db)).rejects.toThrow('ArangoDB thread schema setup failed in database "nodius"');
      } finally {
        db.close();
        resetLogSink();
      }
    });
  });
}
