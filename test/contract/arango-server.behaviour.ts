import { aql } from 'arangojs';
import { HiddenIndexDescription } from 'arangojs/indexes';
import { ArangoQueryExecutor } from '../../src/database/arango/arango-query.executor';
import { compareVersions } from '../../src/graph/arango/arango-capabilities';
import { ArangoGraphStore, ArangoGraphStoreOptions } from '../../src/graph/arango/arango-graph.store';
import { ARANGO_GRAPH_NAMES } from '../../src/graph/arango/arango-graph.names';
import { graphChangeSet } from '../../src/graph/graph-change-set';
import { GraphDocument, GraphNode } from '../../src/graph/graph.types';
import { LogEntry } from '../../src/observability/log-entry';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { appErrorOf } from '../support/app-error-of';
import { ArangoTestDatabase, openArangoTestDatabase } from '../support/arango-test.database';
import { seededRandom } from '../support/seeded-random';
import { runVectorIndexScript, VectorIndexDefinition } from '../support/vector-index.script';

type Settings = { url: string; user: string; password: string | undefined };

/**
 * What only a real ArangoDB shows about the graph store, beyond the store-agnostic contract
 * (graph-store.contract.ts): the server's own view-link format, the identifier analyzer on a large
 * value, its key rule and error numbers, and the vector index (nProbe, stored values, training).
 * Run by arango-graph-store.contract.spec.ts when ARANGO_URL is set (`npm run test:arango`); the
 * vector index part needs the server started with --vector-index (docker-compose.yml does).
 */
export function describeArangoServerBehaviour(settings: Settings): void {
  describe('ArangoGraphStore on a real ArangoDB server', () => {
    let logs: LogEntry[];
    beforeEach(() => {
      logs = [];
      setLogSink((entry) => logs.push(entry));
    });
    afterEach(() => resetLogSink());
    const events = (): string[] => logs.map((entry) => entry.event);

    describe('schema and search', () => {
      let database: ArangoTestDatabase;
      beforeAll(async () => {
        database = await openArangoTestDatabase(settings, 'graph_ai_server_schema');
      });
      afterAll(() => database?.drop());

      it('leaves the search view link alone when another instance starts on the same database (no reindex at every start)', async () => {
        await ArangoGraphStore.open(database.db);
        expect(events()).toContain('arango_view_created');
        logs.length = 0;
        await ArangoGraphStore.open(database.db);
        expect(events()).toContain('arango_schema_ready');
        expect(events()).not.toContain('arango_view_link_updated');
        expect(events()).not.toContain('arango_view_created');
      });

      it('still finds a node by the identifiers at the start of a 1 MB process (the analyzer reads a capped input)', async () => {
        const store = await ArangoGraphStore.open(database.db, { searchWaitForSync: true });
        const process = `function computeZebraHistogram(rows) { return rows.length; }\n// ${'filler text '.repeat(90_000)}`;
        expect(process.length).toBeGreaterThan(1_000_000);
        await store.importGraph(
          'ws-analyzer',
          singleSheetGraph('analyzer', [node('analyzer', 'huge', { process }), node('analyzer', 'small')]),
        );
        const hits = await store.forWorkspace('ws-analyzer').searchNodes('analyzer', 'zebra histogram', 5);
        // Only the identifier analyzer splits computeZebraHistogram into words: the prose one keeps it whole.
        expect(hits.map((hit) => hit.node._key)).toEqual(['huge']);
        expect(hits[0].node.process).toBe(process);
      });
    });

    describe('keys', () => {
      let database: ArangoTestDatabase;
      let store: ArangoGraphStore;
      beforeAll(async () => {
        database = await openArangoTestDatabase(settings, 'graph_ai_server_keys');
        store = await ArangoGraphStore.open(database.db);
      });
      afterAll(() => database?.drop());

      it('stores every key the rule accepts: all the punctuation allowed, and a document key of exactly 254 bytes', async () => {
        const punctuated = "n_1-2.3@4(5)6+7,8=9;a$b!c*d'e%f:g";
        const longest = 'x'.repeat(254 - 'keys-'.length);
        await store.importGraph('ws-keys', singleSheetGraph('keys', [node('keys', punctuated), node('keys', longest)]));
        const source = store.forWorkspace('ws-keys');
        expect((await source.getNodesByKeys('keys', [punctuated, longest])).map((found) => found._key)).toEqual([
          punctuated,
          longest,
        ]);
      });

      it('refuses a key the server would refuse with a 400 naming it, and writes nothing of the change set', async () => {
        const source = store.forWorkspace('ws-keys');
        const error = await appErrorOf(
          source.applyChanges(
            'keys',
            graphChangeSet({ nodesToCreate: [node('keys', 'fine'), node('keys', 'my node')] }),
          ),
        );
        expect({ code: error.code, statusCode: error.statusCode }).toEqual({ code: 'bad_request', statusCode: 400 });
        expect(error.message).toContain('"my node"');
        expect(await source.getNodeByKey('keys', 'fine')).toBeNull();
      });

      it("answers the server's own refusal of a key (error 1221) as bad_request", async () => {
        const executor = new ArangoQueryExecutor(database.db);
        const insert = aql`INSERT { _key: ${'has space'} } INTO ${database.db.collection(ARANGO_GRAPH_NAMES.nodes)}`;
        expect(await appErrorOf(executor.all(insert, 'insert'))).toMatchObject({
          code: 'bad_request',
          statusCode: 400,
        });
      });

      it('refuses a graph key that another graph key extends with "-", or that extends one, so node keys cannot collide', async () => {
        // Graph "team" with node "b-c" and graph "team-b" with node "c" would both be stored as nodius_nodes/team-b-c.
        await store.importGraph('ws-keys', singleSheetGraph('team', [node('team', 'b-c')]));
        await store.importGraph('ws-keys', singleSheetGraph('north-east', [node('north-east', 'c')]));
        for (const clashing of ['team-b', 'north']) {
          const error = await appErrorOf(
            store.importGraph('ws-keys', singleSheetGraph(clashing, [node(clashing, 'c')])),
          );
          expect({ graphKey: clashing, code: error.code }).toEqual({ graphKey: clashing, code: 'conflict' });
          expect(await store.forWorkspace('ws-keys').getGraph(clashing)).toBeNull();
        }
        // A longer key that is not a "-" extension is fine.
        await store.importGraph('ws-keys', singleSheetGraph('teams', [node('teams', 'c')]));
        expect((await store.forWorkspace('ws-keys').getNodeByKey('team', 'b-c'))?._key).toBe('b-c');
        expect((await store.forWorkspace('ws-keys').getNodeByKey('teams', 'c'))?._key).toBe('c');
      });
    });

    describe('vector index (needs --vector-index, ArangoDB 3.12.7+)', () => {
      const DIMENSION = 16;
      /** Directions the vectors are drawn around: well-separated neighbourhoods for the index's clusters. */
      const CLUSTERS = 24;
      let database: ArangoTestDatabase;
      let store: ArangoGraphStore;
      let vectors: Map<string, Float32Array>;
      let definition: VectorIndexDefinition;

      beforeAll(async () => {
        database = await openArangoTestDatabase(settings, 'graph_ai_server_vectors');
        const { version } = await database.db.version();
        if (compareVersions(version, '3.12.7') < 0)
          throw new Error(`the vector index tests need ArangoDB 3.12.7+, the server is ${version}`);
        const writer = await ArangoGraphStore.open(database.db);
        vectors = await embedClusteredGraphs(writer, DIMENSION, CLUSTERS);
        // The index docker/arangodb/create-vector-index.js builds for this collection, as the script defines it.
        definition = runVectorIndexScript(version, vectors.size, String(DIMENSION)).definition;
        expect(definition.storedValues).toEqual(['graphKey', 'embeddingModel']);
        await database.db
          .collection(ARANGO_GRAPH_NAMES.nodes)
          .ensureIndex(definition)
          .catch((error: unknown) => {
            throw new Error(
              `creating the vector index failed: start ArangoDB with --vector-index=true (docker-compose.yml does): ${String(error)}`,
            );
          });
        await waitUntilTrained(database, definition.name, vectors.get('large:b0') as Float32Array);
        // A store opened after the index exists detects it; large graphs from 100 nodes use it.
        const options: ArangoGraphStoreOptions = { vectorExactScanBelow: 100 };
        store = await ArangoGraphStore.open(database.db, options);
      }, 120_000);
      afterAll(() => database?.drop());

      it('finds every node of a small graph in a large collection (graphs below the size are scanned exactly)', async () => {
        const source = store.forWorkspace('ws-vectors');
        const query = vectors.get('small:s3') as Float32Array;
        const hits = await source.searchNodesByVector('small', { vector: query, model: 'm', minScore: -1 }, 20);
        expect(hits.map((hit) => hit.node._key).sort()).toEqual(
          Array.from({ length: 12 }, (_, index) => `s${index}`).sort(),
        );
        expect(hits[0]).toMatchObject({ node: { _key: 's3' }, score: expect.closeTo(1, 4) });
      });

      it('answers a large graph through the index, probing enough clusters to match the exact ranking', async () => {
        const reopened = await ArangoGraphStore.open(database.db, { vectorExactScanBelow: 100 });
        expect(logs.find((entry) => entry.event === 'arango_schema_ready')).toMatchObject({
          vectorIndex: expect.stringContaining(
            `nodius_ai_embedding_cosine (dimension ${DIMENSION}, nLists ${definition.params.nLists}, stored graphKey, embeddingModel)`,
          ),
        });
        const indexed = reopened.forWorkspace('ws-vectors');
        const exact = (
          await ArangoGraphStore.open(database.db, { vectorExactScanBelow: Number.MAX_SAFE_INTEGER })
        ).forWorkspace('ws-vectors');
        const random = seededRandom(7);
        let overlap = 0;
        const queries = 10;
        for (let round = 0; round < queries; round += 1) {
          const target = `b${Math.floor(random() * 600)}`;
          const query = jitter(vectors.get(`large:${target}`) as Float32Array, random, 0.02);
          const viaIndex = (
            await indexed.searchNodesByVector('large', { vector: query, model: 'm', minScore: -1 }, 10)
          ).map((hit) => hit.node._key);
          const viaScan = (
            await exact.searchNodesByVector('large', { vector: query, model: 'm', minScore: -1 }, 10)
          ).map((hit) => hit.node._key);
          expect(viaIndex[0]).toBe(viaScan[0]);
          overlap += viaIndex.filter((key) => viaScan.includes(key)).length / viaScan.length;
        }
        expect(overlap / queries).toBeGreaterThanOrEqual(0.9);
        expect(events()).not.toContain('arango_vector_index_failed');
      });
    });
  });
}

function node(graphKey: string, key: string, extra: Partial<GraphNode> = {}): GraphNode {
  return { _key: key, graphKey, type: 'step', sheet: '0', posX: 0, posY: 0, ...extra };
}

function singleSheetGraph(graphKey: string, nodes: GraphNode[]): GraphDocument {
  return {
    graph: { _key: graphKey, workspace: '', name: graphKey, sheetsList: { '0': 'main' } },
    nodes,
    edges: [],
    nodeConfigs: [],
  };
}

function unit(vector: Float32Array): Float32Array {
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

function jitter(vector: Float32Array, random: () => number, amount: number): Float32Array {
  return unit(vector.map((value) => value + (random() - 0.5) * amount));
}

/**
 * A large graph (600 nodes) and a small one (12 nodes) of one workspace, embedded with model "m":
 * each vector is one of `clusters` random directions plus a little noise, so the index's clusters
 * are well defined and an exact ranking is reachable by probing the nearest ones.
 */
async function embedClusteredGraphs(
  store: ArangoGraphStore,
  dimension: number,
  clusters: number,
): Promise<Map<string, Float32Array>> {
  const random = seededRandom(2024);
  const centers = Array.from({ length: clusters }, () =>
    unit(Float32Array.from({ length: dimension }, () => random() - 0.5)),
  );
  const vectors = new Map<string, Float32Array>();
  for (const [graphKey, prefix, count] of [
    ['large', 'b', 600],
    ['small', 's', 12],
  ] as const) {
    const keys = Array.from({ length: count }, (_, index) => `${prefix}${index}`);
    await store.importGraph(
      'ws-vectors',
      singleSheetGraph(
        graphKey,
        keys.map((key) => node(graphKey, key)),
      ),
    );
    const entries = keys.map((key) => {
      const vector = jitter(centers[Math.floor(random() * clusters)], random, 0.3);
      vectors.set(`${graphKey}:${key}`, vector);
      return { nodeKey: key, vector, model: 'm', hash: key };
    });
    await store.saveEmbeddings('ws-vectors', graphKey, entries);
  }
  return vectors;
}

/**
 * Built in the background, the index may still be building or training when ensureIndex returns:
 * waits until it is listed as built (no `progress`), trained when the server says (`trainingState`,
 * 3.12.9+), and answers a query through it.
 */
async function waitUntilTrained(database: ArangoTestDatabase, name: string, probe: Float32Array): Promise<void> {
  const nodes = database.db.collection(ARANGO_GRAPH_NAMES.nodes);
  const deadline = Date.now() + 60_000;
  let last: unknown = 'not listed';
  while (Date.now() < deadline) {
    const indexes: Array<{ name?: string; progress?: number; trainingState?: string }> =
      await nodes.indexes<HiddenIndexDescription>({ withHidden: true });
    const listed = indexes.find((index) => index.name === name);
    if (listed && listed.progress === undefined && (listed.trainingState ?? 'ready') === 'ready') {
      try {
        await (
          await database.db.query(aql`
          FOR n IN ${nodes}
            SORT APPROX_NEAR_COSINE(n.embedding, ${Array.from(probe)}) DESC
            LIMIT 1
            RETURN n._key`)
        ).all();
        return;
      } catch (error) {
        last = error;
      }
    } else {
      last = listed
        ? `progress ${String(listed.progress)}, trainingState ${String(listed.trainingState)}`
        : 'not listed';
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the vector index ${name} was not usable within 60 s: ${String(last)}`);
}
