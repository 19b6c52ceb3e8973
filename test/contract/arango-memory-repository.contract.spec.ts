import { randomBytes } from 'node:crypto';
import { Database } from 'arangojs';
import { ArangoConnector } from '../../src/database/arango/arango-connector';
import { ArangoMemoryRepository } from '../../src/memory/arango/arango-memory.repository';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { arangoTestConnection } from '../support/arango-test.connection';
import { closedPortUrl } from '../support/fake-arango.server';
import { describeMemoryRepositoryContract } from './memory-repository.contract';

/**
 * The MemoryRepository contract on a real ArangoDB, when ARANGO_URL is set (see
 * arango-thread-repository.contract.spec.ts for how to run it). The run gets a fresh database, shared
 * by its tests (each works in its own workspace), dropped at the end. Records do not reference their
 * thread in ArangoDB (MemoryService removes them when the thread is deleted), so createThread does nothing.
 */
const arango = arangoTestConnection();

if (arango) {
  const { url, user, password } = arango;
  const database = `memory_ai_contract_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  let opened: Promise<{ db: Database; repository: ArangoMemoryRepository }> | undefined;

  const open = () =>
    (opened ??= (async () => {
      const db = await new ArangoConnector(
        { url, user, password, database },
        { attempts: 3, initialDelayMs: 200, maxDelayMs: 1000 },
      ).connect();
      return { db, repository: await ArangoMemoryRepository.open(db) };
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

  describeMemoryRepositoryContract(ArangoMemoryRepository.name, async () => ({
    repository: (await open()).repository,
    createThread: async () => undefined,
    close: async () => undefined,
  }));
} else {
  describe(`${ArangoMemoryRepository.name} (MemoryRepository contract) [skipped: ARANGO_URL not set]`, () => {
    // Skipped on purpose: the contract needs a real ArangoDB server (ARANGO_URL), which CI machines do not have;
    // jest's summary then lists this test by name (test/support/skipped-tests.reporter.js).
    it.skip('runs the MemoryRepository contract against ArangoDB when ARANGO_URL is set', () => undefined);

    it('without a reachable server, opening the repository fails with a clear error instead of hanging', async () => {
      setLogSink(() => undefined);
      const db = new Database({ url: await closedPortUrl(), databaseName: 'nodius' });
      try {
        await expect(ArangoMemoryRepository.open(db)).rejects.toThrow(
          'ArangoDB memory schema setup failed in database "nodius"',
        );
      } finally {
        db.close();
        resetLogSink();
      }
    });
  });
}
