import { randomBytes } from 'node:crypto';
import { Database } from 'arangojs';
import { ArangoActionPolicyRepository } from '../../src/ai/policy/arango/arango-action-policy.repository';
import { ArangoConnector } from '../../src/graph/arango/arango-connector';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { arangoTestConnection } from '../support/arango-test.connection';
import { closedPortUrl } from '../support/fake-arango.server';
import { describeActionPolicyRepositoryContract } from './action-policy-repository.contract';

/**
 * The ActionPolicyRepository contract on a real ArangoDB, when ARANGO_URL is set (as the thread
 * repository's contract: a fresh database for the run, shared by its tests, dropped at the end).
 * Without ARANGO_URL the suite is reported as skipped, with the reason in its title.
 */
const arango = arangoTestConnection();

if (arango) {
  const { url, user, password } = arango;
  const database = `policy_ai_contract_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  let opened: Promise<Database> | undefined;

  const open = () =>
    (opened ??= new ArangoConnector({ url, user, password, database }, { attempts: 3, initialDelayMs: 200, maxDelayMs: 1000 }).connect());

  beforeAll(() => setLogSink(() => undefined));
  afterAll(async () => {
    resetLogSink();
    (await opened?.catch(() => undefined))?.close();
    const system = new Database({ url, databaseName: '_system', auth: { username: user, password: password ?? '' } });
    try {
      await system.dropDatabase(database).catch(() => false);
    } finally {
      system.close();
    }
  });

  describeActionPolicyRepositoryContract(ArangoActionPolicyRepository.name, async () => {
    const db = await open();
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
        await expect(ArangoActionPolicyRepository.open(db)).rejects.toThrow('ArangoDB policy collection setup failed in database "nodius"');
      } finally {
        db.close();
        resetLogSink();
      }
    });
  });
}
