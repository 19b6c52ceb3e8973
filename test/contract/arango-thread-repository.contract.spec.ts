import { Database } from 'arangojs';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { ArangoThreadRepository } from '../../src/threads/arango/arango-thread.repository';
import { arangoTestConnection } from '../support/arango-test.connection';
import { ArangoTestDatabase, openArangoTestDatabase } from '../support/arango-test.database';
import { closedPortUrl } from '../support/fake-arango.server';
import { describeThreadRepositoryContract } from './thread-repository.contract';

/**
 * The ThreadRepository contract on a real ArangoDB, when ARANGO_URL is set: `npm run test:arango` runs it
 * with the graph store's (docker-compose provides the server: `docker compose up -d arangodb`, then
 * ARANGO_URL=http://127.0.0.1:8529 ARANGO_PASSWORD=… npm run test:arango).
 * The run gets a fresh database (created by the connector, schema ensured by the repository), shared
 * by its tests (each works in its own workspace and threads), dropped at the end.
 * Without ARANGO_URL the suite is reported as skipped, with the reason in its title.
 */
const arango = arangoTestConnection();

if (arango) {
  let opened: Promise<{ database: ArangoTestDatabase; repository: ArangoThreadRepository }> | undefined;

  const open = () =>
    (opened ??= (async () => {
      const database = await openArangoTestDatabase(arango, 'thread_ai_contract');
      return { database, repository: await ArangoThreadRepository.open(database.db) };
    })());

  beforeAll(() => setLogSink(() => undefined));
  afterAll(async () => {
    resetLogSink();
    await (await opened?.catch(() => undefined))?.database.drop();
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
        await expect(ArangoThreadRepository.open(db)).rejects.toThrow(
          'ArangoDB thread schema setup failed in database "nodius"',
        );
      } finally {
        db.close();
        resetLogSink();
      }
    });
  });
}
