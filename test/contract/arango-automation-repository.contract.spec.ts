import { Database } from 'arangojs';
import {
  ARANGO_AUTOMATION_NAMES,
  ArangoAutomationRepository,
} from '../../src/automations/arango/arango-automation.repository';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { arangoTestConnection } from '../support/arango-test.connection';
import { ArangoTestDatabase, openArangoTestDatabase } from '../support/arango-test.database';
import { expectOpenToFailWithoutServer } from '../support/arango-open-failure';
import { preparedArangoReply, startFakeArango } from '../support/fake-arango.server';
import { describeAutomationRepositoryContract } from './automation-repository.contract';

/**
 * The AutomationRepository contract on a real ArangoDB when ARANGO_URL is set (`npm run test:arango`): a
 * fresh database for the run (two connections to it play two instances), dropped at the end. Without
 * ARANGO_URL the suite reports itself skipped.
 */
const arango = arangoTestConnection();

if (arango) {
  let opened:
    | Promise<{
        database: ArangoTestDatabase;
        repository: ArangoAutomationRepository;
        another: ArangoAutomationRepository;
        second: Database;
      }>
    | undefined;
  const open = () =>
    (opened ??= (async () => {
      const database = await openArangoTestDatabase(arango, 'automation_contract');
      const second = new Database({
        url: arango.url,
        databaseName: database.db.name,
        auth: { username: arango.user, password: arango.password ?? '' },
      });
      return {
        database,
        second,
        repository: await ArangoAutomationRepository.open(database.db),
        another: new ArangoAutomationRepository(second),
      };
    })());

  beforeAll(() => setLogSink(() => undefined));
  afterAll(async () => {
    resetLogSink();
    const resources = await opened?.catch(() => undefined);
    resources?.second.close();
    await resources?.database.drop();
  });

  describeAutomationRepositoryContract(ArangoAutomationRepository.name, async () => {
    const { repository, another } = await open();
    return { repository, another, close: async () => undefined };
  });
} else {
  describe(`${ArangoAutomationRepository.name} (AutomationRepository contract) [skipped: ARANGO_URL not set]`, () => {
    // Skipped on purpose: the contract needs a real ArangoDB server (ARANGO_URL), which CI machines do not have;
    // jest's summary then lists this test by name (test/support/skipped-tests.reporter.js).
    it.skip('runs the AutomationRepository contract against ArangoDB when ARANGO_URL is set', () => undefined);

    it('ensures its three collections and their indexes when opened', async () => {
      const server = await startFakeArango(preparedArangoReply);
      const db = new Database({ url: server.url, databaseName: 'nodius' });
      try {
        await ArangoAutomationRepository.open(db);
        const checked = server.requests
          .filter((request) => /\/_api\/collection\/[^/]+$/.test(request.path))
          .map((request) => request.path.split('/').pop());
        expect(checked).toEqual(Object.values(ARANGO_AUTOMATION_NAMES));
        const indexes = server.requests
          .filter((request) => request.path.endsWith('/_api/index'))
          .map((request) => [request.query.collection, request.body]);
        expect(indexes).toEqual([
          [
            ARANGO_AUTOMATION_NAMES.automations,
            { type: 'persistent', fields: ['workspace', 'createdTime'], inBackground: true },
          ],
          [
            ARANGO_AUTOMATION_NAMES.automations,
            { type: 'persistent', fields: ['enabled', 'nextRunTime'], inBackground: true },
          ],
          [
            ARANGO_AUTOMATION_NAMES.automations,
            { type: 'persistent', fields: ['runLeaseExpiresAt'], sparse: true, inBackground: true },
          ],
          [
            ARANGO_AUTOMATION_NAMES.runs,
            { type: 'persistent', fields: ['workspace', 'automationId', 'startedTime'], inBackground: true },
          ],
          [
            ARANGO_AUTOMATION_NAMES.runs,
            { type: 'persistent', fields: ['workspace', 'threadId'], sparse: true, inBackground: true },
          ],
          [ARANGO_AUTOMATION_NAMES.runs, { type: 'persistent', fields: ['startedTime'], inBackground: true }],
          [
            ARANGO_AUTOMATION_NAMES.runs,
            { type: 'persistent', fields: ['outcome', 'startedTime'], inBackground: true },
          ],
        ]);
      } finally {
        db.close();
        await server.close();
      }
    });

    it('without a reachable server, opening fails with a clear error instead of hanging', () =>
      expectOpenToFailWithoutServer(
        (db) => ArangoAutomationRepository.open(db),
        'ArangoDB automation schema setup failed in database "nodius"',
      ));
  });
}
