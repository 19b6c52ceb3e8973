import { Database } from 'arangojs';
import { ArangoActionPolicyRepository } from '../../src/policy/arango/arango-action-policy.repository';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { arangoTestConnection } from '../support/arango-test.connection';
import { ArangoTestDatabase, openArangoTestDatabase } from '../support/arango-test.database';
import { closedPortUrl } from '../support/fake-arango.server';
import { describeActionPolicyRepositoryContract } from './action-policy-repository.contract';

/**
 * The ActionPolicyRepository contract on a real ArangoDB, when ARANGO_URL is set (`npm run test:arango`
 * runs it with the other stores' contracts): a fresh database for the run, shared by its tests, dropped at the end.
 * Without ARANGO_URL the suite is reported as skipped, with the reason in its title.
 */
const arango = arangoTestConnection();

if (arango) {
  let opened: Promise<ArangoTestDatabase> | undefined;
  const open = () => (opened ??= openArangoTestDatabase(arango, 'policy_ai_contract'));

  beforeAll(() => setLogSink(() => undefined));
  afterAll(async () => {
    resetLogSink();
    await (await opened?.catch(() => undefined))?.drop();
  });

  describeActionPolicyRepositoryContract(ArangoActionPolicyRepository.name, async () => {
    const { db } = await open();
    return {
      repository: await ArangoActionPolicyRepository.open(db),
      reopen: () => ArangoActionPolicyRepository.open(db),
      close: async () => undefined, // the run's connection and database are released once, after all tests
    };
  });
} else {
  describe(`${ArangoActionPolicyRepository.name} (ActionPolicyRepository contract) [skipped: ARANGO_URL not set]`, () => {
    // Skipped on purpose: the contract needs a real ArangoDB server (ARANGO_URL), which CI machines do not have;
    // jest's summary then lists this test by name (test/support/skipped-tests.reporter.js).
    it.skip('runs the ActionPolicyRepository contract against ArangoDB when ARANGO_URL is set', () => undefined);

    it('without a reachable server, opening the repository fails with a clear error instead of hanging', async () => {
      setLogSink(() => undefined);
      const db = new Database({ url: await closedPortUrl(), databaseName: 'nodius' });
      try {
        await expect(ArangoActionPolicyRepository.open(db)).rejects.toThrow(
          'ArangoDB policy collection setup failed in database "nodius"',
        );
      } finally {
        db.close();
        resetLogSink();
      }
    });
  });
}
