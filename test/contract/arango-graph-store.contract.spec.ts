import { randomBytes } from 'node:crypto';
import { ArangoConnector } from '../../src/database/arango/arango-connector';
import { ArangoGraphStore } from '../../src/graph/arango/arango-graph.store';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { arangoTestConnection } from '../support/arango-test.connection';
import { closedPortUrl } from '../support/fake-arango.server';
import { PerTestArangoGraphStore } from '../support/per-test-arango-graph.store';
import { describeArangoServerBehaviour } from './arango-server.behaviour';
import { describeGraphStoreContract } from './graph-store.contract';

/**
 * The GraphStore contract on a real ArangoDB, when ARANGO_URL is set, and what only a real server
 * shows (arango-server.behaviour.ts). Run both ArangoDB suites with `npm run test:arango`; the
 * docker-compose ArangoDB serves them (`docker compose up -d arangodb`, then
 * ARANGO_URL=http://127.0.0.1:8529 ARANGO_PASSWORD=… npm run test:arango). Each contract test runs in a
 * fresh database of this run (see PerTestArangoGraphStore), all dropped at the end.
 * Without ARANGO_URL the suite is reported as skipped, with the reason in its title.
 */
const arango = arangoTestConnection();

if (arango) {
  const { url, user, password } = arango;

  beforeAll(() => setLogSink(() => undefined));
  afterAll(() => resetLogSink());

  describeGraphStoreContract(
    ArangoGraphStore.name,
    async () => {
      const runPrefix = `graph_ai_contract_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
      const store = new PerTestArangoGraphStore(
        { url, user, password, database: runPrefix },
        runPrefix,
        () => expect.getState().currentTestName,
      );
      return { store, cleanup: () => store.dropDatabases() };
    },
    { graphKeysScopedPerWorkspace: false },
  ); // a _key is unique per collection: one graph or config key per store

  describeArangoServerBehaviour({ url, user, password });
} else {
  // A file whose tests are all skipped is silent in jest's output; the running test below makes the
  // skip, and its reason, appear in the report.
  describe(`${ArangoGraphStore.name} (GraphStore contract) [contract skipped: ARANGO_URL not set]`, () => {
    // Skipped on purpose: the contract needs a real ArangoDB server (ARANGO_URL), which CI machines do not have;
    // jest's summary then lists this test by name (test/support/skipped-tests.reporter.js).
    it.skip('runs the GraphStore contract against ArangoDB when ARANGO_URL is set', () => undefined);

    it('without a reachable server, opening the store fails with a clear error instead of hanging', async () => {
      setLogSink(() => undefined);
      try {
        const url = await closedPortUrl();
        const connecting = new ArangoConnector(
          { url, database: 'nodius', user: 'root', password: undefined },
          { attempts: 2, initialDelayMs: 10, maxDelayMs: 10 },
        ).connect();
        await expect(connecting).rejects.toThrow(`ArangoDB at ${url} is unreachable after 2 attempts`);
      } finally {
        resetLogSink();
      }
    });
  });
}
