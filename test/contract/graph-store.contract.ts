import { nbaWorkflowDemo } from '../../src/graph/demo/nba-workflow.demo';
import { GraphChangeSet, graphChangeSet } from '../../src/graph/graph-change-set';
import { EdgeDirection, GraphDataSource } from '../../src/graph/graph-data-source';
import { GraphStore } from '../../src/graph/graph-store';
import { GraphDocument, GraphEdge, GraphNode } from '../../src/graph/graph.types';
import { appErrorOf } from '../support/app-error-of';
import { describeWithSharedFixtures, loadWorkflowFixture } from '../support/shared-fixtures';

export interface GraphStoreHarness {
  store: GraphStore;
  /** Releases everything createStore made (connections, temp dirs, databases). */
  cleanup(): Promise<void>;
}

/** What differs between stores by design, so the contract can hold each to what it promises. */
export interface GraphStoreCapabilities {
  /**
   * True when graph keys and node-config keys are scoped to their workspace, so two workspaces may each
   * hold the same key (SQLite). False when keys are unique across the store (ArangoDB: a `_key` is
   * unique per collection): importing a key another workspace holds is refused with 409 conflict.
   */
  graphKeysScopedPerWorkspace: boolean;
}

const DEMO = nbaWorkflowDemo.graph._key;
const EMBEDDING_FIELDS = ['embedding', 'embeddingModel', 'embeddingHash'];

const byKey = <T extends { _key: string }>(items: T[]): T[] => [...items].sort((a, b) => a._key.localeCompare(b._key));
const keysOf = (items: Array<{ _key: string }>): string[] => items.map((item) => item._key);
const sortedKeys = (items: Array<{ _key: string }>): string[] => keysOf(items).sort();

function demoCopy(): GraphDocument {
  return structuredClone(nbaWorkflowDemo);
}

/** The document moved under another graph key (its nodes and edges name their graph). */
function withGraphKey(document: GraphDocument, graphKey: string): GraphDocument {
  document.graph._key = graphKey;
  for (const item of [...document.nodes, ...document.edges]) item.graphKey = graphKey;
  return document;
}

function unitVector(dimension: number, ...hot: Array<[number, number]>): Float32Array {
  const vector = new Float32Array(dimension);
  for (const [index, value] of hot) vector[index] = value;
  return vector;
}

/** Reference BFS over a document's edges: node key → distance from the start. */
function referenceDistances(
  document: GraphDocument,
  start: string,
  depth: number,
  direction: EdgeDirection,
): Map<string, number> {
  const distances = new Map([[start, 0]]);
  let frontier = [start];
  for (let level = 1; level <= depth && frontier.length > 0; level += 1) {
    const next: string[] = [];
    for (const key of frontier) {
      for (const edge of document.edges) {
        const neighbours: string[] = [];
        if (direction !== 'in' && edge.source === key) neighbours.push(edge.target);
        if (direction !== 'out' && edge.target === key) neighbours.push(edge.source);
        for (const neighbour of neighbours) {
          if (distances.has(neighbour)) continue;
          distances.set(neighbour, level);
          next.push(neighbour);
        }
      }
    }
    frontier = next;
  }
  return distances;
}

function expectNoEmbeddingFields(nodes: GraphNode[]): void {
  for (const node of nodes) for (const field of EMBEDDING_FIELDS) expect(node).not.toHaveProperty(field);
}

/**
 * The behaviour every GraphStore adapter must have (GraphDataSource, MutableGraphDataSource and
 * GraphStore of src/graph). Store-agnostic: run it with a factory for a fresh store, e.g.
 *   describeGraphStoreContract('SqliteGraphStore', async () => ({ store, cleanup }), { graphKeysScopedPerWorkspace: true });
 * One store serves the whole suite; every test works in its own workspaces, so tests stay independent.
 */
export function describeGraphStoreContract(
  name: string,
  createStore: () => Promise<GraphStoreHarness>,
  capabilities: GraphStoreCapabilities,
): void {
  const scopedKeys = capabilities.graphKeysScopedPerWorkspace;
  describe(`${name} (GraphStore contract)`, () => {
    let harness: GraphStoreHarness;
    let store: GraphStore;
    let workspaceCounter = 0;
    const newWorkspace = (label = 'ws'): string =>
      `contract-${label}-${Date.now().toString(36)}-${(workspaceCounter += 1)}`;

    beforeAll(async () => {
      harness = await createStore();
      store = harness.store;
    });

    afterAll(async () => {
      await harness?.store.close();
      await harness?.cleanup();
    });

    /**
     * The demo graph for a second workspace of a test: as is where keys are per workspace; where they
     * are global, under its own graph key and without node configs (their keys belong to the first).
     */
    function demoCopyForSecondWorkspace(label: string): GraphDocument {
      const document = demoCopy();
      if (scopedKeys) return document;
      document.nodeConfigs = [];
      return withGraphKey(document, `${DEMO}-${label}`);
    }

    async function expectHiddenFrom(stranger: ReturnType<GraphStore['forWorkspace']>): Promise<void> {
      expect(await stranger.getGraph(DEMO)).toBeNull();
      expect(await stranger.getNodes(DEMO)).toEqual([]);
      expect(await stranger.getEdges(DEMO)).toEqual([]);
      expect(await stranger.getNodeByKey(DEMO, 'root')).toBeNull();
      expect(await stranger.getNodesByKeys(DEMO, ['root'])).toEqual([]);
      expect(await stranger.getEdgesOfNode(DEMO, 'root', 'any')).toEqual([]);
      expect(await stranger.getNodeConfigs()).toEqual([]);
      expect(await stranger.searchNodes(DEMO, 'root', 5)).toEqual([]);
      expect(
        await stranger.searchNodesByVector(DEMO, { vector: unitVector(4, [0, 1]), model: 'm', minScore: -1 }, 5),
      ).toEqual([]);
      expect(await stranger.getNeighborhood(DEMO, 'root', 2, 'any')).toEqual({ nodes: [], edges: [] });
      expect(await store.exportGraph(stranger.workspace, DEMO)).toBeNull();
      expect(await store.getEmbeddingStates(stranger.workspace, DEMO)).toEqual([]);
    }

    async function demoSource(): Promise<{ workspace: string; source: ReturnType<GraphStore['forWorkspace']> }> {
      const workspace = newWorkspace('demo');
      await store.importGraph(workspace, demoCopy());
      return { workspace, source: store.forWorkspace(workspace) };
    }

    describe('reads', () => {
      it('returns the graph with its workspace forced to the importer and unknown fields kept', async () => {
        const workspace = newWorkspace();
        const document = demoCopy();
        document.graph.workspace = 'someone-else';
        document.graph.customFlag = { nested: [1, 2] };
        await store.importGraph(workspace, document);
        const graph = await store.forWorkspace(workspace).getGraph(DEMO);
        expect(graph).toEqual({ ...document.graph, workspace });
        expect(await store.forWorkspace(workspace).getGraph('no-such-graph')).toBeNull();
      });

      it('lists nodes and edges, whole or by sheet, as imported and without vectors', async () => {
        const { source } = await demoSource();
        const nodes = await source.getNodes(DEMO);
        expect(byKey(nodes)).toEqual(byKey(nbaWorkflowDemo.nodes));
        expect(sortedKeys(await source.getNodes(DEMO, '1'))).toEqual(['disconnected-note', 'sort-stats']);
        expect(await source.getNodes(DEMO, 'no-sheet')).toEqual([]);
        expect(byKey(await source.getEdges(DEMO))).toEqual(byKey(nbaWorkflowDemo.edges));
        expect(await source.getEdges(DEMO, '1')).toEqual([]);
        expect((await source.getEdges(DEMO, '0')).length).toBe(6);
        expectNoEmbeddingFields(nodes);
      });

      it('keeps unknown fields of nodes and edges', async () => {
        const workspace = newWorkspace();
        const document = demoCopy();
        document.nodes[0].nodiusInternal = { revision: 7, tags: ['a'] };
        document.edges[0].style = 'dashed';
        await store.importGraph(workspace, document);
        const source = store.forWorkspace(workspace);
        expect((await source.getNodeByKey(DEMO, document.nodes[0]._key))?.nodiusInternal).toEqual({
          revision: 7,
          tags: ['a'],
        });
        expect((await source.getEdges(DEMO)).find((edge) => edge._key === document.edges[0]._key)?.style).toBe(
          'dashed',
        );
      });

      it('gets one node by key, or null', async () => {
        const { source } = await demoSource();
        expect(await source.getNodeByKey(DEMO, 'fetch-api')).toEqual(
          nbaWorkflowDemo.nodes.find((node) => node._key === 'fetch-api'),
        );
        expect(await source.getNodeByKey(DEMO, 'ghost')).toBeNull();
        expect(await source.getNodeByKey('no-such-graph', 'fetch-api')).toBeNull();
      });

      it('gets nodes by keys in the order asked, skipping unknown keys and repeats', async () => {
        const { source } = await demoSource();
        const nodes = await source.getNodesByKeys(DEMO, ['return', 'ghost', 'root', 'fetch-api', 'root']);
        expect(keysOf(nodes)).toEqual(['return', 'root', 'fetch-api']);
        expect(await source.getNodesByKeys(DEMO, [])).toEqual([]);
        expectNoEmbeddingFields(nodes);
      });

      it('gets the edges of a node by direction', async () => {
        const { source } = await demoSource();
        expect(sortedKeys(await source.getEdgesOfNode(DEMO, 'fetch-api', 'out'))).toEqual([
          'fetch-api-to-error-handler',
          'fetch-api-to-filter-active',
        ]);
        expect(sortedKeys(await source.getEdgesOfNode(DEMO, 'fetch-api', 'in'))).toEqual(['root-to-fetch-api']);
        expect(sortedKeys(await source.getEdgesOfNode(DEMO, 'fetch-api', 'any'))).toEqual([
          'fetch-api-to-error-handler',
          'fetch-api-to-filter-active',
          'root-to-fetch-api',
        ]);
        expect(await source.getEdgesOfNode(DEMO, 'disconnected-note', 'any')).toEqual([]);
      });

      it("returns the workspace's node configs with the workspace forced", async () => {
        const workspace = newWorkspace();
        const document = demoCopy();
        document.nodeConfigs[0].workspace = 'elsewhere';
        await store.importGraph(workspace, document);
        const configs = await store.forWorkspace(workspace).getNodeConfigs();
        expect(sortedKeys(configs)).toEqual(['api-call', 'filter', 'log-node', 'transform']);
        expect(configs.every((config) => config.workspace === workspace)).toBe(true);
        expect(configs.find((config) => config._key === 'api-call')?.displayName).toBe('API Call');
      });

      it('lists every graph of every workspace', async () => {
        const first = newWorkspace();
        const second = newWorkspace();
        const secondDocument = demoCopyForSecondWorkspace('second');
        await store.importGraph(first, demoCopy());
        await store.importGraph(second, secondDocument);
        expect(await store.listGraphs()).toEqual(
          expect.arrayContaining([
            { workspace: first, graphKey: DEMO },
            { workspace: second, graphKey: secondDocument.graph._key },
          ]),
        );
        expect(await store.listGraphs(first)).toEqual([{ workspace: first, graphKey: DEMO }]);
      });

      it('tells whether it holds any graph at all (the demo seeder asks on every start)', async () => {
        const fresh = await createStore();
        try {
          expect(await fresh.store.hasGraphs()).toBe(false);
          await fresh.store.importGraph(newWorkspace('first'), demoCopy());
          expect(await fresh.store.hasGraphs()).toBe(true);
        } finally {
          await fresh.store.close();
          await fresh.cleanup();
        }
      });

      it('reports itself up', async () => {
        expect(await store.health()).toMatchObject({ status: 'up', kind: store.kind });
      });
    });

    describe('workspace isolation', () => {
      /** Bob's own graph: the demo's second sheet, renamed, with his own config of the type "transform". */
      function bobsGraph(bob: string, graphKey: string, configKey: string): GraphDocument {
        const bobs = withGraphKey(demoCopy(), graphKey);
        bobs.graph.name = 'Bob version';
        bobs.nodes = bobs.nodes.filter((node) => node.sheet === '1');
        bobs.edges = [];
        bobs.nodeConfigs = [{ _key: configKey, workspace: bob, displayName: 'Bob Transform' }];
        return bobs;
      }

      if (scopedKeys) {
        it('keeps one graph key in two workspaces as two graphs, and hides both from a third', async () => {
          const alice = newWorkspace('alice');
          const bob = newWorkspace('bob');
          const stranger = store.forWorkspace(newWorkspace('stranger'));
          await store.importGraph(alice, demoCopy());
          await store.importGraph(bob, bobsGraph(bob, DEMO, 'transform'));

          expect((await store.forWorkspace(alice).getGraph(DEMO))?.name).toBe('NBA stats workflow');
          expect((await store.forWorkspace(bob).getGraph(DEMO))?.name).toBe('Bob version');
          expect((await store.forWorkspace(alice).getNodes(DEMO)).length).toBe(9);
          expect((await store.forWorkspace(bob).getNodes(DEMO)).length).toBe(2);
          expect(await store.forWorkspace(bob).getNodeByKey(DEMO, 'fetch-api')).toBeNull();
          expect(
            (await store.forWorkspace(alice).getNodeConfigs()).find((config) => config._key === 'transform')
              ?.displayName,
          ).toBe('Transform');
          expect(await store.forWorkspace(bob).searchNodes(DEMO, 'fetch api', 5)).toEqual([]);

          await expectHiddenFrom(stranger);
        });
      } else {
        it("refuses a graph or config key another workspace holds (409 conflict) without leaking it, keeps each workspace's graph apart, and hides both from a third", async () => {
          const alice = newWorkspace('alice');
          const bob = newWorkspace('bob');
          const stranger = store.forWorkspace(newWorkspace('stranger'));
          await store.importGraph(alice, demoCopy());

          for (const refused of [bobsGraph(bob, DEMO, 'bob-transform'), bobsGraph(bob, `${DEMO}-bob`, 'transform')]) {
            const error = await appErrorOf(store.importGraph(bob, refused));
            expect({ code: error.code, statusCode: error.statusCode }).toEqual({ code: 'conflict', statusCode: 409 });
            expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(alice);
          }
          expect(await store.forWorkspace(bob).getGraph(DEMO)).toBeNull();
          expect(await store.forWorkspace(bob).getNodes(DEMO)).toEqual([]);
          expect(await store.forWorkspace(bob).getGraph(`${DEMO}-bob`)).toBeNull();
          expect(await store.forWorkspace(bob).getNodeConfigs()).toEqual([]);
          expect((await store.forWorkspace(alice).getGraph(DEMO))?.name).toBe('NBA stats workflow');
          expect((await store.forWorkspace(alice).getNodes(DEMO)).length).toBe(9);
          expect(
            (await store.forWorkspace(alice).getNodeConfigs()).find((config) => config._key === 'transform')
              ?.displayName,
          ).toBe('Transform');

          const bobKey = `${DEMO}-bob`;
          await store.importGraph(bob, bobsGraph(bob, bobKey, 'bob-transform'));
          expect((await store.forWorkspace(bob).getGraph(bobKey))?.name).toBe('Bob version');
          expect((await store.forWorkspace(bob).getNodes(bobKey)).length).toBe(2);
          expect(await store.forWorkspace(bob).getNodeByKey(bobKey, 'fetch-api')).toBeNull();
          expect(await store.forWorkspace(bob).searchNodes(bobKey, 'fetch api', 5)).toEqual([]);
          expect(await store.forWorkspace(alice).getGraph(bobKey)).toBeNull();
          expect(await store.forWorkspace(alice).getNodes(bobKey)).toEqual([]);
          expect((await store.forWorkspace(alice).getNodeConfigs()).map((config) => config._key)).not.toContain(
            'bob-transform',
          );

          await expectHiddenFrom(stranger);
          expect(await stranger.getGraph(bobKey)).toBeNull();
          expect(await stranger.getNodes(bobKey)).toEqual([]);
        });
      }

      it("refuses to write into another workspace's graph (not_found) and leaves it untouched", async () => {
        const owner = newWorkspace('owner');
        await store.importGraph(owner, demoCopy());
        const intruder = store.forWorkspace(newWorkspace('intruder'));
        const node = { ...nbaWorkflowDemo.nodes[0], _key: 'intruder-node' };
        expect((await appErrorOf(intruder.createNode(DEMO, node))).code).toBe('not_found');
        expect((await appErrorOf(intruder.deleteNode(DEMO, 'root'))).code).toBe('not_found');
        expect(
          (await appErrorOf(intruder.updateNode(DEMO, { ...nbaWorkflowDemo.nodes[1], type: 'hacked' }))).code,
        ).toBe('not_found');
        expect((await appErrorOf(intruder.deleteEdge(DEMO, 'root-to-fetch-api'))).code).toBe('not_found');
        expect(
          (await appErrorOf(intruder.applyChanges(DEMO, graphChangeSet({ nodeKeysToDelete: ['root'] })))).code,
        ).toBe('not_found');
        const vector = { nodeKey: 'root', vector: unitVector(4, [0, 1]), model: 'm', hash: 'h' };
        expect((await appErrorOf(store.saveEmbeddings(intruder.workspace, DEMO, [vector]))).code).toBe('not_found');
        const ownerSource = store.forWorkspace(owner);
        expect((await ownerSource.getNodes(DEMO)).length).toBe(9);
        expect((await ownerSource.getNodeByKey(DEMO, 'root'))?.type).toBe('starter');
        expect((await store.getEmbeddingStates(owner, DEMO)).every((state) => state.model === null)).toBe(true);
      });
    });

    describe('neighbourhood (BFS)', () => {
      it('walks the given depth and direction, start first, each node once', async () => {
        const { source } = await demoSource();
        const depthOne = await source.getNeighborhood(DEMO, 'fetch-api', 1, 'any');
        expect(depthOne.nodes[0]._key).toBe('fetch-api');
        expect(sortedKeys(depthOne.nodes)).toEqual(['error-handler', 'fetch-api', 'filter-active', 'root']);
        expect(sortedKeys(depthOne.edges)).toEqual([
          'fetch-api-to-error-handler',
          'fetch-api-to-filter-active',
          'root-to-fetch-api',
        ]);

        const outward = await source.getNeighborhood(DEMO, 'root', 2, 'out');
        expect(keysOf(outward.nodes).slice(0, 2)).toEqual(['root', 'fetch-api']);
        expect(sortedKeys(outward.nodes)).toEqual(['error-handler', 'fetch-api', 'filter-active', 'root']);

        const inward = await source.getNeighborhood(DEMO, 'display-html', 3, 'in');
        expect(keysOf(inward.nodes)).toEqual(['display-html', 'filter-active', 'fetch-api', 'root']);
        expect(sortedKeys(inward.edges)).toEqual([
          'fetch-api-to-filter-active',
          'filter-active-to-display-html',
          'root-to-fetch-api',
        ]);
      });

      it('returns the start alone for an isolated node, and nothing for an unknown node or graph', async () => {
        const { source } = await demoSource();
        const alone = await source.getNeighborhood(DEMO, 'disconnected-note', 3, 'any');
        expect(keysOf(alone.nodes)).toEqual(['disconnected-note']);
        expect(alone.edges).toEqual([]);
        expectNoEmbeddingFields(alone.nodes);
        expect(await source.getNeighborhood(DEMO, 'ghost', 2, 'any')).toEqual({ nodes: [], edges: [] });
        expect(await source.getNeighborhood('no-such-graph', 'root', 2, 'any')).toEqual({ nodes: [], edges: [] });
      });

      it('visits each node of a cycle once and returns the edges that join them', async () => {
        const workspace = newWorkspace();
        const node = (key: string): GraphNode => ({
          _key: key,
          graphKey: 'cycle',
          type: 'step',
          sheet: '0',
          posX: 0,
          posY: 0,
        });
        const edge = (source: string, target: string): GraphEdge => ({
          _key: `${source}-${target}`,
          graphKey: 'cycle',
          sheet: '0',
          source,
          sourceHandle: 'out',
          target,
          targetHandle: 'in',
        });
        await store.importGraph(workspace, {
          graph: { _key: 'cycle', workspace, name: 'Cycle', sheetsList: { '0': 'main' } },
          nodes: ['a', 'b', 'c', 'd'].map(node),
          edges: [edge('a', 'b'), edge('b', 'c'), edge('c', 'a'), edge('a', 'a'), edge('c', 'd')],
          nodeConfigs: [],
        });
        const result = await store.forWorkspace(workspace).getNeighborhood('cycle', 'a', 3, 'out');
        expect(keysOf(result.nodes)).toEqual(['a', 'b', 'c', 'd']);
        expect(sortedKeys(result.edges)).toEqual(['a-a', 'a-b', 'b-c', 'c-a', 'c-d']);
        const depthOne = await store.forWorkspace(workspace).getNeighborhood('cycle', 'a', 1, 'any');
        expect(sortedKeys(depthOne.nodes)).toEqual(['a', 'b', 'c']);
      });

      it('stays within depth 1-3', async () => {
        const { source } = await demoSource();
        const deep = await source.getNeighborhood(DEMO, 'entry-form', 10, 'out');
        expect(sortedKeys(deep.nodes)).toEqual(['entry-form', 'error-handler', 'fetch-api', 'filter-active', 'root']);
      });
    });

    describe('lexical search', () => {
      it('ranks the node a query names first, in any spelling', async () => {
        const { source } = await demoSource();
        for (const query of ['fetch-api', 'fetchApi', 'fetch api', 'FETCH_API']) {
          expect((await source.searchNodes(DEMO, query, 5))[0]?.node._key).toBe('fetch-api');
        }
        expect((await source.searchNodes(DEMO, 'what does the error handler do?', 5))[0]?.node._key).toBe(
          'error-handler',
        );
      });

      it('ranks nodes of the type a query names first, by type key or display name', async () => {
        const { source } = await demoSource();
        expect((await source.searchNodes(DEMO, 'filter', 5))[0]?.node._key).toBe('filter-active');
        expect((await source.searchNodes(DEMO, 'API Call', 5))[0]?.node._key).toBe('fetch-api');
        expect((await source.searchNodes(DEMO, 'Log Node', 5))[0]?.node._key).toBe('error-handler');
      });

      it('finds nodes by code and data, with scores > 0, best first, within maxResults, without vectors', async () => {
        const { source } = await demoSource();
        const hits = await source.searchNodes(DEMO, 'players points assists', 3);
        expect(hits.length).toBeGreaterThan(0);
        expect(hits.length).toBeLessThanOrEqual(3);
        expect(hits[0].node._key).toBe('sort-stats');
        expect(hits.every((hit) => hit.score > 0)).toBe(true);
        expect(hits.map((hit) => hit.score)).toEqual(hits.map((hit) => hit.score).sort((a, b) => b - a));
        expectNoEmbeddingFields(hits.map((hit) => hit.node));
        expect((await source.searchNodes(DEMO, 'team averages', 5))[0]?.node._key).toBe('disconnected-note');
      });

      it('folds accents and case and ignores French and English stop words', async () => {
        const workspace = newWorkspace();
        const document = demoCopy();
        document.nodes.push({
          _key: 'recuperer-joueurs',
          graphKey: DEMO,
          type: 'transform',
          sheet: '1',
          posX: 0,
          posY: 0,
          data: { label: 'Récupère les DONNÉES des équipes' },
        });
        await store.importGraph(workspace, document);
        const source = store.forWorkspace(workspace);
        expect((await source.searchNodes(DEMO, 'quelles sont les données des équipes ?', 5))[0]?.node._key).toBe(
          'recuperer-joueurs',
        );
        expect((await source.searchNodes(DEMO, 'EQUIPES', 5))[0]?.node._key).toBe('recuperer-joueurs');
      });

      it('returns [] when nothing matches (falling back is not the store’s job)', async () => {
        const { source } = await demoSource();
        expect(await source.searchNodes(DEMO, 'kubernetes cluster autoscaling', 5)).toEqual([]);
        expect(await source.searchNodes(DEMO, 'the of and', 5)).toEqual([]);
        expect(await source.searchNodes(DEMO, '', 5)).toEqual([]);
        expect(await source.searchNodes('no-such-graph', 'fetch', 5)).toEqual([]);
      });

      it('sees writes at once: new, changed and deleted nodes', async () => {
        const { source } = await demoSource();
        expect(await source.searchNodes(DEMO, 'zebra', 5)).toEqual([]);
        const sort = (await source.getNodeByKey(DEMO, 'sort-stats')) as GraphNode;
        await source.updateNode(DEMO, { ...sort, data: { ...(sort.data as object), note: 'zebra stripes' } });
        expect((await source.searchNodes(DEMO, 'zebra', 5)).map((hit) => hit.node._key)).toEqual(['sort-stats']);
        await source.createNode(DEMO, {
          _key: 'zebra-counter',
          graphKey: DEMO,
          type: 'transform',
          sheet: '1',
          posX: 0,
          posY: 0,
        });
        expect((await source.searchNodes(DEMO, 'zebra', 5))[0].node._key).toBe('zebra-counter');
        await source.deleteNode(DEMO, 'zebra-counter');
        await source.deleteNode(DEMO, 'sort-stats');
        expect(await source.searchNodes(DEMO, 'zebra', 5)).toEqual([]);
      });
    });

    describe('vector search', () => {
      async function withVectors() {
        const { workspace, source } = await demoSource();
        await store.saveEmbeddings(workspace, DEMO, [
          { nodeKey: 'fetch-api', vector: unitVector(4, [0, 1]), model: 'model-a', hash: 'h1' },
          { nodeKey: 'filter-active', vector: unitVector(4, [0, 0.8], [1, 0.6]), model: 'model-a', hash: 'h2' },
          { nodeKey: 'sort-stats', vector: unitVector(4, [0, 0.2], [1, 0.98]), model: 'model-a', hash: 'h3' },
          { nodeKey: 'display-html', vector: unitVector(4, [0, 1]), model: 'model-b', hash: 'h4' },
          { nodeKey: 'ghost-node', vector: unitVector(4, [0, 1]), model: 'model-a', hash: 'h5' },
        ]);
        return { workspace, source };
      }

      it('ranks by cosine similarity above the threshold, best first, without vectors in the nodes', async () => {
        const { source } = await withVectors();
        const hits = await source.searchNodesByVector(
          DEMO,
          { vector: unitVector(4, [0, 2]), model: 'model-a', minScore: 0.3 },
          10,
        );
        expect(keysOf(hits.map((hit) => hit.node))).toEqual(['fetch-api', 'filter-active']);
        expect(hits[0].score).toBeCloseTo(1, 5);
        expect(hits[1].score).toBeCloseTo(0.8, 5);
        expectNoEmbeddingFields(hits.map((hit) => hit.node));
      });

      it('keeps top-k and compares only vectors of the query model', async () => {
        const { source } = await withVectors();
        const top1 = await source.searchNodesByVector(
          DEMO,
          { vector: unitVector(4, [0, 1]), model: 'model-a', minScore: -1 },
          1,
        );
        expect(keysOf(top1.map((hit) => hit.node))).toEqual(['fetch-api']);
        const modelB = await source.searchNodesByVector(
          DEMO,
          { vector: unitVector(4, [0, 1]), model: 'model-b', minScore: 0.3 },
          10,
        );
        expect(keysOf(modelB.map((hit) => hit.node))).toEqual(['display-html']);
        expect(
          await source.searchNodesByVector(
            DEMO,
            { vector: unitVector(4, [0, 1]), model: 'model-c', minScore: 0.3 },
            10,
          ),
        ).toEqual([]);
      });

      it('drops deleted nodes and sees new vectors at once', async () => {
        const { workspace, source } = await withVectors();
        await source.deleteNode(DEMO, 'fetch-api');
        await store.saveEmbeddings(workspace, DEMO, [
          { nodeKey: 'root', vector: unitVector(4, [0, 1], [2, 0.01]), model: 'model-a', hash: 'h6' },
        ]);
        const hits = await source.searchNodesByVector(
          DEMO,
          { vector: unitVector(4, [0, 1]), model: 'model-a', minScore: 0.3 },
          10,
        );
        expect(keysOf(hits.map((hit) => hit.node))).toEqual(['root', 'filter-active']);
      });

      it('records embedding states per node and skips unknown nodes', async () => {
        const { workspace } = await withVectors();
        const states = await store.getEmbeddingStates(workspace, DEMO);
        expect(states).toHaveLength(9);
        expect(states.find((state) => state.nodeKey === 'fetch-api')).toEqual({
          nodeKey: 'fetch-api',
          model: 'model-a',
          hash: 'h1',
        });
        expect(states.find((state) => state.nodeKey === 'root')).toEqual({ nodeKey: 'root', model: null, hash: null });
        expect(states.some((state) => state.nodeKey === 'ghost-node')).toBe(false);
      });
    });

    describe('mutations', () => {
      const newNode = (key: string, extra: Partial<GraphNode> = {}): GraphNode => ({
        _key: key,
        graphKey: DEMO,
        type: 'transform',
        sheet: '1',
        posX: 10,
        posY: 20,
        ...extra,
      });
      const newEdge = (key: string, source: string, target: string): GraphEdge => ({
        _key: key,
        graphKey: DEMO,
        sheet: '1',
        source,
        sourceHandle: 'R-0',
        target,
        targetHandle: 'L-0',
      });

      it('creates, updates and deletes nodes; a duplicate is a conflict; a missing node is not_found', async () => {
        const { source } = await demoSource();
        await source.createNode(DEMO, newNode('averages', { data: { top: 5 } }));
        expect(await source.getNodeByKey(DEMO, 'averages')).toEqual(newNode('averages', { data: { top: 5 } }));
        expect((await appErrorOf(source.createNode(DEMO, newNode('averages')))).code).toBe('conflict');

        await source.updateNode(DEMO, { ...newNode('averages'), graphKey: 'other-graph', posX: 99, data: { top: 9 } });
        expect(await source.getNodeByKey(DEMO, 'averages')).toEqual(
          newNode('averages', { posX: 99, data: { top: 9 } }),
        );
        expect((await appErrorOf(source.updateNode(DEMO, newNode('ghost')))).code).toBe('not_found');

        await source.deleteNode(DEMO, 'averages');
        expect(await source.getNodeByKey(DEMO, 'averages')).toBeNull();
        const missing = await appErrorOf(source.deleteNode(DEMO, 'averages'));
        expect(missing.code).toBe('not_found');
        expect(missing.message).toContain('averages');
        expect((await appErrorOf(source.createNode('no-such-graph', newNode('x')))).code).toBe('not_found');
      });

      it('deletes the edges of a deleted node', async () => {
        const { source } = await demoSource();
        await source.deleteNode(DEMO, 'fetch-api');
        expect(sortedKeys(await source.getEdges(DEMO))).toEqual([
          'display-html-to-return',
          'entry-form-to-root',
          'filter-active-to-display-html',
        ]);
        expect(await source.getEdgesOfNode(DEMO, 'root', 'out')).toEqual([]);
      });

      it('creates, updates and deletes edges; dangling edges are refused', async () => {
        const { source } = await demoSource();
        await source.createEdge(DEMO, newEdge('sort-to-note', 'sort-stats', 'disconnected-note'));
        expect(sortedKeys(await source.getEdgesOfNode(DEMO, 'sort-stats', 'out'))).toEqual(['sort-to-note']);
        expect(
          (await appErrorOf(source.createEdge(DEMO, newEdge('sort-to-note', 'sort-stats', 'disconnected-note')))).code,
        ).toBe('conflict');
        const dangling = await appErrorOf(source.createEdge(DEMO, newEdge('to-ghost', 'sort-stats', 'ghost')));
        expect(dangling.code).toBe('bad_request');
        expect(dangling.message).toContain('ghost');

        await source.updateEdge(DEMO, {
          ...newEdge('sort-to-note', 'disconnected-note', 'sort-stats'),
          label: 'reversed',
        });
        const [updated] = await source.getEdgesOfNode(DEMO, 'disconnected-note', 'out');
        expect(updated).toMatchObject({
          _key: 'sort-to-note',
          graphKey: DEMO,
          source: 'disconnected-note',
          label: 'reversed',
        });
        expect((await appErrorOf(source.updateEdge(DEMO, newEdge('ghost-edge', 'root', 'return')))).code).toBe(
          'not_found',
        );
        expect((await appErrorOf(source.updateEdge(DEMO, newEdge('sort-to-note', 'root', 'ghost')))).code).toBe(
          'bad_request',
        );

        await source.deleteEdge(DEMO, 'sort-to-note');
        expect(await source.getEdgesOfNode(DEMO, 'sort-stats', 'any')).toEqual([]);
        expect((await appErrorOf(source.deleteEdge(DEMO, 'sort-to-note'))).code).toBe('not_found');
      });

      it('never leaves a dangling edge when one change deletes a node while another connects an edge to it', async () => {
        const { source } = await demoSource();
        for (let round = 0; round < 8; round += 1) {
          await source.createNode(DEMO, newNode(`victim-${round}`));
          await Promise.allSettled([
            source.applyChanges(DEMO, graphChangeSet({ nodeKeysToDelete: [`victim-${round}`] })),
            source.applyChanges(
              DEMO,
              graphChangeSet({ edgesToCreate: [newEdge(`to-victim-${round}`, 'sort-stats', `victim-${round}`)] }),
            ),
            // Moving an existing edge onto the node races the same way.
            source.updateEdge(DEMO, {
              ...newEdge('display-html-to-return', 'display-html', `victim-${round}`),
              sheet: '0',
            }),
          ]);
          const nodes = new Set(keysOf(await source.getNodes(DEMO)));
          for (const edge of await source.getEdges(DEMO)) {
            expect({ edge: edge._key, source: nodes.has(edge.source), target: nodes.has(edge.target) }).toEqual({
              edge: edge._key,
              source: true,
              target: true,
            });
          }
        }
      });

      it('applies a change set: creations, nested set paths, deletions', async () => {
        const { source } = await demoSource();
        await source.applyChanges(
          DEMO,
          graphChangeSet({
            nodesToCreate: [newNode('averages', { sheet: '0' })],
            edgesToCreate: [{ ...newEdge('filter-to-averages', 'filter-active', 'averages'), sheet: '0' }],
            instructions: [
              {
                nodeKey: 'filter-active',
                op: 'set',
                path: ['data', 'criteria', 'minutes', 'min'],
                value: 20,
                triggerHtmlRender: true,
              },
              { nodeKey: 'filter-active', op: 'set', path: ['posX'], value: 900, animatePos: true },
              { nodeKey: 'averages', op: 'set', path: ['data', 'label'], value: 'Team averages' },
            ],
            nodeKeysToDelete: ['error-handler'],
            edgeKeysToDelete: ['display-html-to-return'],
          }),
        );
        const filter = await source.getNodeByKey(DEMO, 'filter-active');
        expect(filter).toMatchObject({
          _key: 'filter-active',
          graphKey: DEMO,
          posX: 900,
          data: { minGames: 10, criteria: { minutes: { min: 20 } } },
        });
        expect((await source.getNodeByKey(DEMO, 'averages'))?.data).toEqual({ label: 'Team averages' });
        expect(await source.getNodeByKey(DEMO, 'error-handler')).toBeNull();
        const edges = sortedKeys(await source.getEdges(DEMO));
        expect(edges).toContain('filter-to-averages');
        expect(edges).not.toContain('display-html-to-return');
        expect(edges).not.toContain('fetch-api-to-error-handler');
      });

      it('updates several existing nodes and edges in one change set, and every one of them reads back changed', async () => {
        const { source } = await demoSource();
        const before = new Map((await source.getNodes(DEMO)).map((node) => [node._key, node]));
        const edited = ['root', 'fetch-api', 'filter-active', 'display-html', 'sort-stats', 'disconnected-note'];
        const edges = await source.getEdges(DEMO);
        expect(edges.length).toBeGreaterThan(3);
        await source.applyChanges(
          DEMO,
          graphChangeSet({
            instructions: edited.flatMap((nodeKey, index) => [
              { nodeKey, op: 'set' as const, path: ['posX'], value: 1000 + index },
              { nodeKey, op: 'set' as const, path: ['data', 'revisedBy'], value: `change-set-${nodeKey}` },
            ]),
            // An edge is changed in a change set by deleting it and creating it again under its key.
            edgeKeysToDelete: edges.map((edge) => edge._key),
            edgesToCreate: edges.map((edge) => ({ ...edge, label: `relabelled ${edge._key}` })),
          }),
        );
        const after = new Map((await source.getNodes(DEMO)).map((node) => [node._key, node]));
        expect(after.size).toBe(before.size);
        for (const [index, nodeKey] of edited.entries()) {
          const original = before.get(nodeKey) as GraphNode;
          expect(after.get(nodeKey)).toEqual({
            ...original,
            posX: 1000 + index,
            data: { ...((original.data as object | undefined) ?? {}), revisedBy: `change-set-${nodeKey}` },
          });
        }
        for (const [nodeKey, node] of after) if (!edited.includes(nodeKey)) expect(node).toEqual(before.get(nodeKey));
        expect(byKey(await source.getEdges(DEMO))).toEqual(
          byKey(edges.map((edge) => ({ ...edge, label: `relabelled ${edge._key}` }))),
        );
        expect(sortedKeys(await source.getEdgesOfNode(DEMO, 'fetch-api', 'any'))).toEqual([
          'fetch-api-to-error-handler',
          'fetch-api-to-filter-active',
          'root-to-fetch-api',
        ]);
      });

      it('keeps the vectors of every moved node and drops those of every changed one, in one change set', async () => {
        const { workspace, source } = await demoSource();
        const moved = ['root', 'fetch-api', 'filter-active'];
        const changed = ['display-html', 'sort-stats', 'error-handler'];
        await store.saveEmbeddings(
          workspace,
          DEMO,
          [...moved, ...changed].map((nodeKey) => ({
            nodeKey,
            vector: unitVector(2, [0, 1]),
            model: 'm',
            hash: `hash-${nodeKey}`,
          })),
        );
        await source.applyChanges(
          DEMO,
          graphChangeSet({
            instructions: [
              ...moved.map((nodeKey) => ({ nodeKey, op: 'set' as const, path: ['posY'], value: 777 })),
              ...changed.map((nodeKey) => ({ nodeKey, op: 'set' as const, path: ['data', 'changed'], value: true })),
            ],
          }),
        );
        const states = new Map(
          (await store.getEmbeddingStates(workspace, DEMO)).map((state) => [state.nodeKey, state]),
        );
        for (const nodeKey of moved)
          expect(states.get(nodeKey)).toEqual({ nodeKey, model: 'm', hash: `hash-${nodeKey}` });
        for (const nodeKey of changed) expect(states.get(nodeKey)).toEqual({ nodeKey, model: null, hash: null });
        for (const nodeKey of [...moved, ...changed])
          expect((await source.getNodeByKey(DEMO, nodeKey))?.posY === 777).toBe(moved.includes(nodeKey));
        const hits = await source.searchNodesByVector(
          DEMO,
          { vector: unitVector(2, [0, 1]), model: 'm', minScore: 0.5 },
          10,
        );
        expect(sortedKeys(hits.map((hit) => hit.node))).toEqual([...moved].sort());
      });

      it('applies nothing when any part of a change set fails, and names the culprit', async () => {
        const { workspace, source } = await demoSource();
        const before = await store.exportGraph(workspace, DEMO);
        const valid = {
          nodesToCreate: [newNode('averages')],
          instructions: [{ nodeKey: 'root', op: 'set' as const, path: ['data', 'x'], value: 1 }],
          nodeKeysToDelete: ['sort-stats'],
        };
        const failures: Array<[Partial<GraphChangeSet>, string, string]> = [
          [{ ...valid, nodeKeysToDelete: ['sort-stats', 'ghost-node'] }, 'not_found', 'ghost-node'],
          [{ ...valid, edgeKeysToDelete: ['ghost-edge'] }, 'not_found', 'ghost-edge'],
          [
            {
              ...valid,
              instructions: [...valid.instructions, { nodeKey: 'ghost-target', op: 'set', path: ['posX'], value: 1 }],
            },
            'not_found',
            'ghost-target',
          ],
          [{ ...valid, nodesToCreate: [newNode('averages'), newNode('root')] }, 'conflict', 'root'],
          [
            { ...valid, edgesToCreate: [newEdge('entry-form-to-root', 'root', 'averages')] },
            'conflict',
            'entry-form-to-root',
          ],
          [{ ...valid, edgesToCreate: [newEdge('to-deleted', 'averages', 'sort-stats')] }, 'bad_request', 'sort-stats'],
          [
            { ...valid, instructions: [{ nodeKey: 'root', op: 'set', path: ['_key'], value: 'renamed' }] },
            'bad_request',
            '_key',
          ],
        ];
        for (const [partial, code, culprit] of failures) {
          const error = await appErrorOf(source.applyChanges(DEMO, graphChangeSet(partial)));
          expect({ code: error.code, namesCulprit: error.message.includes(culprit) }).toEqual({
            code,
            namesCulprit: true,
          });
        }
        expect(await store.exportGraph(workspace, DEMO)).toEqual(before);
        expect((await appErrorOf(source.applyChanges('no-such-graph', graphChangeSet()))).code).toBe('not_found');
      });
    });

    describe('import and export', () => {
      it('answers the counts, and replaces the previous graph entirely', async () => {
        const workspace = newWorkspace();
        expect(await store.importGraph(workspace, demoCopy())).toEqual({ nodes: 9, edges: 6 });
        const smaller = demoCopy();
        smaller.nodes = smaller.nodes.filter((node) => node.sheet === '1');
        smaller.edges = [];
        smaller.graph.name = 'Smaller';
        expect(await store.importGraph(workspace, smaller)).toEqual({ nodes: 2, edges: 0 });
        const source = store.forWorkspace(workspace);
        expect(sortedKeys(await source.getNodes(DEMO))).toEqual(['disconnected-note', 'sort-stats']);
        expect(await source.getEdges(DEMO)).toEqual([]);
        expect((await source.getGraph(DEMO))?.name).toBe('Smaller');
        expect(await source.searchNodes(DEMO, 'fetch api', 5)).toEqual([]);
      });

      it('fills missing graphKeys with the graph key', async () => {
        const workspace = newWorkspace();
        const document = demoCopy();
        for (const node of document.nodes) delete (node as Partial<GraphNode>).graphKey;
        for (const edge of document.edges) delete (edge as Partial<GraphEdge>).graphKey;
        await store.importGraph(workspace, document);
        const source = store.forWorkspace(workspace);
        expect((await source.getNodes(DEMO)).every((node) => node.graphKey === DEMO)).toBe(true);
        expect((await source.getEdges(DEMO)).every((edge) => edge.graphKey === DEMO)).toBe(true);
      });

      it('refuses an inconsistent graph with every problem listed, and keeps the previous graph', async () => {
        const { workspace } = await demoSource();
        const before = await store.exportGraph(workspace, DEMO);
        const broken = demoCopy();
        broken.graph.name = 'Broken';
        broken.edges.push({ ...broken.edges[0], _key: 'to-ghost', target: 'ghost' });
        broken.nodes.push({ ...broken.nodes[1] });
        broken.nodes[0].sheet = 'no-sheet';
        const error = await appErrorOf(store.importGraph(workspace, broken));
        expect(error.code).toBe('bad_request');
        const fields = (error.details as Array<{ field: string }>).map((problem) => problem.field);
        expect(fields).toEqual(expect.arrayContaining(['edges[6].target', 'nodes[9]._key', 'nodes[0].sheet']));
        expect(await store.exportGraph(workspace, DEMO)).toEqual(before);
      });

      it('exports the graph as stored, without vectors, with the configs of the types it uses', async () => {
        const workspace = newWorkspace();
        const document = demoCopy();
        document.nodeConfigs.push({ _key: 'unused-type', workspace, displayName: 'Unused' });
        await store.importGraph(workspace, document);
        await store.saveEmbeddings(workspace, DEMO, [
          { nodeKey: 'root', vector: unitVector(3, [0, 1]), model: 'm', hash: 'h' },
        ]);
        const exported = await store.exportGraph(workspace, DEMO);
        expect(exported?.graph).toEqual({ ...nbaWorkflowDemo.graph, workspace });
        expect(byKey(exported?.nodes ?? [])).toEqual(byKey(nbaWorkflowDemo.nodes));
        expectNoEmbeddingFields(exported?.nodes ?? []);
        expect(byKey(exported?.edges ?? [])).toEqual(byKey(nbaWorkflowDemo.edges));
        expect(sortedKeys(exported?.nodeConfigs ?? [])).toEqual(['api-call', 'filter', 'log-node', 'transform']);
        expect(await store.exportGraph(workspace, 'no-such-graph')).toBeNull();

        // The export imports as is elsewhere (over itself where keys are global) and exports the same again.
        const elsewhere = scopedKeys ? newWorkspace() : workspace;
        await store.importGraph(elsewhere, exported as GraphDocument);
        const again = (await store.exportGraph(elsewhere, DEMO)) as GraphDocument;
        expect(again.graph).toEqual({ ...exported?.graph, workspace: elsewhere });
        expect(byKey(again.nodes)).toEqual(byKey(exported?.nodes ?? []));
        expect(byKey(again.edges)).toEqual(byKey(exported?.edges ?? []));
        expect(byKey(again.nodeConfigs)).toEqual(
          byKey((exported?.nodeConfigs ?? []).map((config) => ({ ...config, workspace: elsewhere }))),
        );
      });

      it('keeps stored vectors of nodes whose content did not change across a re-import', async () => {
        const { workspace, source } = await demoSource();
        await store.saveEmbeddings(workspace, DEMO, [
          { nodeKey: 'fetch-api', vector: unitVector(2, [0, 1]), model: 'm', hash: 'fetch-hash' },
          { nodeKey: 'filter-active', vector: unitVector(2, [1, 1]), model: 'm', hash: 'filter-hash' },
          { nodeKey: 'sort-stats', vector: unitVector(2, [0, 1], [1, 1]), model: 'm', hash: 'sort-hash' },
        ]);
        const next = demoCopy();
        const find = (key: string) => next.nodes.find((node) => node._key === key) as GraphNode;
        find('fetch-api').posX += 500; // moved: same content
        find('fetch-api').size = { width: 1, height: 1 };
        find('filter-active').data = { minGames: 20 }; // content changed
        await store.importGraph(workspace, next);
        const states = new Map(
          (await store.getEmbeddingStates(workspace, DEMO)).map((state) => [state.nodeKey, state]),
        );
        expect(states.get('fetch-api')).toEqual({ nodeKey: 'fetch-api', model: 'm', hash: 'fetch-hash' });
        expect(states.get('sort-stats')).toEqual({ nodeKey: 'sort-stats', model: 'm', hash: 'sort-hash' });
        expect(states.get('filter-active')).toEqual({ nodeKey: 'filter-active', model: null, hash: null });
        const hits = await source.searchNodesByVector(
          DEMO,
          { vector: unitVector(2, [0, 1]), model: 'm', minScore: 0.3 },
          5,
        );
        expect(keysOf(hits.map((hit) => hit.node))).toEqual(['fetch-api', 'sort-stats']);
      });
    });

    describeWithSharedFixtures('real workflows', () => {
      const files = [
        'handle-gdpr-data-deletion-requests-with-slack.json',
        'use-redis-to-rate-limit-your-low-code-api.json',
        'api-schema-extractor.json',
      ];

      it('imports real workflows and reads them back unchanged', async () => {
        const workspace = newWorkspace('real');
        for (const file of files) {
          const document = loadWorkflowFixture(file);
          const key = document.graph._key;
          expect(await store.importGraph(workspace, document)).toEqual({
            nodes: document.nodes.length,
            edges: document.edges.length,
          });
          const exported = (await store.exportGraph(workspace, key)) as GraphDocument;
          expect(exported.graph).toEqual({ ...document.graph, workspace });
          expect(byKey(exported.nodes)).toEqual(byKey(document.nodes));
          expect(byKey(exported.edges)).toEqual(byKey(document.edges));
          const usedTypes = new Set(document.nodes.map((node) => node.type));
          expect(sortedKeys(exported.nodeConfigs)).toEqual(
            sortedKeys(document.nodeConfigs.filter((config) => usedTypes.has(config._key))),
          );
        }
      });

      it('walks real graphs like a reference BFS, in every direction and depth', async () => {
        const workspace = newWorkspace('real-bfs');
        const document = loadWorkflowFixture('api-schema-extractor.json');
        await store.importGraph(workspace, document);
        const source: GraphDataSource = store.forWorkspace(workspace);
        const starts = document.nodes.filter((_, index) => index % 9 === 0).map((node) => node._key);
        for (const start of starts) {
          for (const direction of ['in', 'out', 'any'] as const) {
            for (const depth of [1, 2, 3]) {
              const expected = referenceDistances(document, start, depth, direction);
              const result = await source.getNeighborhood(document.graph._key, start, depth, direction);
              const keys = keysOf(result.nodes);
              expect({ start, direction, depth, keys: [...keys].sort() }).toEqual({
                start,
                direction,
                depth,
                keys: [...expected.keys()].sort(),
              });
              expect(keys[0]).toBe(start);
              const distances = keys.map((key) => expected.get(key) as number);
              expect(distances).toEqual([...distances].sort((a, b) => a - b));
              const reached = new Set(keys);
              const joining = document.edges.filter((edge) => reached.has(edge.source) && reached.has(edge.target));
              expect(sortedKeys(result.edges)).toEqual(sortedKeys(joining));
            }
          }
        }
      });

      it('finds real nodes by name, type display name and key spelling', async () => {
        const workspace = newWorkspace('real-search');
        const gdpr = loadWorkflowFixture('handle-gdpr-data-deletion-requests-with-slack.json');
        const redis = loadWorkflowFixture('use-redis-to-rate-limit-your-low-code-api.json');
        await store.importGraph(workspace, gdpr);
        await store.importGraph(workspace, redis);
        const source = store.forWorkspace(workspace);
        const top = async (graphKey: string, query: string, count: number) =>
          (await source.searchNodes(graphKey, query, 10)).slice(0, count).map((hit) => hit.node._key);
        expect(await top(gdpr.graph._key, 'Zendesk data deletion', 1)).toEqual(['zendesk-data-deletion']);
        expect(await top(gdpr.graph._key, 'receiveSlashCommand', 1)).toEqual(['receive-slash-command']);
        expect((await top(gdpr.graph._key, 'Respond to Webhook', 4)).sort()).toEqual([
          'acknowledge',
          'missing-email-error',
          'reject',
          'wrong-command-error',
        ]);
        expect((await top(redis.graph._key, 'redis', 2)).sort()).toEqual(['redis', 'redis1']);
        expect(await source.searchNodes(gdpr.graph._key, 'pokemon', 5)).toEqual([]);
        expect(await top(redis.graph._key, 'pokemon', 1)).toEqual(['airtable']);
      });
    });
  });
}
