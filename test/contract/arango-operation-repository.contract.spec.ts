import { Database } from 'arangojs';
import { ArangoOperationRepository } from '../../src/changes/arango/arango-operation.repository';
import { ArangoGraphStore } from '../../src/graph/arango/arango-graph.store';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { arangoTestConnection } from '../support/arango-test.connection';
import { ArangoTestDatabase, openArangoTestDatabase } from '../support/arango-test.database';
import { closedPortUrl } from '../support/fake-arango.server';
import { describeOperationRepositoryContract } from './operation-repository.contract';

/**
 * The OperationRepository contract on a real ArangoDB, when ARANGO_URL is set (`npm run test:arango`): a fresh database
 * for the run, shared by its tests (each test uses its own workspace and graph key), dropped at the end.
 */
const arango = arangoTestConnection();

if (arango) {
  let opened: Promise<ArangoTestDatabase> | undefined;
  const open = () => (opened ??= openArangoTestDatabase(arango, 'change_log_ai_contract'));

  beforeAll(() => setLogSink(() => undefined));
  afterAll(async () => {
    resetLogSink();
    await (await opened?.catch(() => undefined))?.drop();
  });

  describeOperationRepositoryContract(ArangoOperationRepository.name, async () => {
    const { db } = await open();
    const graphs = await ArangoGraphStore.open(db, { searchWaitForSync: true });
    return {
      repository: await ArangoOperationRepository.open(db, graphs),
      graphs,
      reopen: () => ArangoOperationRepository.open(db, graphs),
      close: async () => undefined, // the run's connection and database are released once, after all tests
    };
  });
} else {
  describe(`${ArangoOperationRepository.name} (OperationRepository contract) [skipped: ARANGO_URL not set]`, () => {
    // Skipped on purpose: the contract needs a real ArangoDB server (ARANGO_URL), which CI machines do not have;
    // jest's summary then lists this test by name (test/support/skipped-tests.reporter.js).
    it.skip('runs the OperationRepository contract against ArangoDB when ARANGO_URL is set', () => undefined);

    it('without a reachable server, opening the store fails with a clear error instead of hanging', async () => {
      setLogSink(() => undefined);
      const db = new Database({ url: await closedPortUrl(), databaseName: 'nodius' });
      try {
        await expect(ArangoOperationRepository.open(db, {} as ArangoGraphStore)).rejects.toThrow(
          'ArangoDB change-log schema setup failed in database "nodius"',
        );
      } finally {
        db.close();
        resetLogSink();
      }
    });
  });
}
