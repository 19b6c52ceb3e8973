import { Database } from 'arangojs';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { ArangoProviderConfigRepository } from '../../src/providers/configs/arango/arango-provider-config.repository';
import { arangoTestConnection } from '../support/arango-test.connection';
import { ArangoTestDatabase, openArangoTestDatabase } from '../support/arango-test.database';
import { expectOpenToFailWithoutServer } from '../support/arango-open-failure';
import { preparedArangoReply, startFakeArango } from '../support/fake-arango.server';
import { describeProviderConfigRepositoryContract } from './provider-config-repository.contract';

/**
 * The ProviderConfigRepository contract on a real ArangoDB when ARANGO_URL is set (`npm run test:arango`);
 * a fresh database for the run, dropped at the end. Without ARANGO_URL the suite reports itself skipped.
 */
const arango = arangoTestConnection();

if (arango) {
  let opened: Promise<{ database: ArangoTestDatabase; repository: ArangoProviderConfigRepository }> | undefined;
  const open = () =>
    (opened ??= (async () => {
      const database = await openArangoTestDatabase(arango, 'provider_config_contract');
      return { database, repository: await ArangoProviderConfigRepository.open(database.db) };
    })());

  beforeAll(() => setLogSink(() => undefined));
  afterAll(async () => {
    resetLogSink();
    await (await opened?.catch(() => undefined))?.database.drop();
  });

  describeProviderConfigRepositoryContract(ArangoProviderConfigRepository.name, async () => ({
    repository: (await open()).repository,
    close: async () => undefined,
  }));
} else {
  describe(`${ArangoProviderConfigRepository.name} (ProviderConfigRepository contract) [skipped: ARANGO_URL not set]`, () => {
    // Skipped on purpose: the contract needs a real ArangoDB server (ARANGO_URL), which CI machines do not have;
    // jest's summary then lists this test by name (test/support/skipped-tests.reporter.js).
    it.skip('runs the ProviderConfigRepository contract against ArangoDB when ARANGO_URL is set', () => undefined);

    it('ensures its collection, a unique (workspace, name) index and a unique sparse index of the active configuration when opened', async () => {
      const server = await startFakeArango(preparedArangoReply);
      const db = new Database({ url: server.url, databaseName: 'nodius' });
      try {
        await ArangoProviderConfigRepository.open(db);
        const indexes = server.requests
          .filter((request) => request.path.endsWith('/_api/index'))
          .map((request) => request.body);
        expect(indexes).toEqual([
          { type: 'persistent', fields: ['workspace', 'name'], unique: true, inBackground: true },
          { type: 'persistent', fields: ['activeWorkspace'], unique: true, sparse: true, inBackground: true },
        ]);
      } finally {
        db.close();
        await server.close();
      }
    });

    it('without a reachable server, opening fails with a clear error instead of hanging', () =>
      expectOpenToFailWithoutServer(
        (db) => ArangoProviderConfigRepository.open(db),
        'ArangoDB provider-config schema setup failed in database "nodius"',
      ));
  });
}
