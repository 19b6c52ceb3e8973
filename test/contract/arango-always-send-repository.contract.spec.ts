import { Database } from 'arangojs';
import { ArangoAlwaysSendRepository } from '../../src/always-send/arango/arango-always-send.repository';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { arangoTestConnection } from '../support/arango-test.connection';
import { ArangoTestDatabase, openArangoTestDatabase } from '../support/arango-test.database';
import { closedPortUrl } from '../support/fake-arango.server';
import { describeAlwaysSendRepositoryContract } from './always-send-repository.contract';

/** The AlwaysSendRepository contract on a real ArangoDB, when ARANGO_URL is set (`npm run test:arango`). */
const arango = arangoTestConnection();

if (arango) {
  let opened: Promise<ArangoTestDatabase> | undefined;
  const open = () => (opened ??= openArangoTestDatabase(arango, 'always_send_ai_contract'));

  beforeAll(() => setLogSink(() => undefined));
  afterAll(async () => {
    resetLogSink();
    await (await opened?.catch(() => undefined))?.drop();
  });

  describeAlwaysSendRepositoryContract(ArangoAlwaysSendRepository.name, async () => {
    const { db } = await open();
    return {
      repository: await ArangoAlwaysSendRepository.open(db),
      reopen: () => ArangoAlwaysSendRepository.open(db),
      close: async () => undefined, // the run's connection and database are released once, after all tests
    };
  });
} else {
  describe(`${ArangoAlwaysSendRepository.name} (AlwaysSendRepository contract) [skipped: ARANGO_URL not set]`, () => {
    // Skipped on purpose: the contract needs a real ArangoDB server (ARANGO_URL), which CI machines do not have;
    // jest's summary then lists this test by name (test/support/skipped-tests.reporter.js).
    it.skip('runs the AlwaysSendRepository contract against ArangoDB when ARANGO_URL is set', () => undefined);

    it('without a reachable server, opening the repository fails with a clear error instead of hanging', async () => {
      setLogSink(() => undefined);
      const db = new Database({ url: await closedPortUrl(), databaseName: 'nodius' });
      try {
        await expect(ArangoAlwaysSendRepository.open(db)).rejects.toThrow(
          'ArangoDB always-send collection setup failed in database "nodius"',
        );
      } finally {
        db.close();
        resetLogSink();
      }
    });
  });
}
