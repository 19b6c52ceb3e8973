import { Database } from 'arangojs';
import { appErrorOf } from '../../../test/support/app-error-of';
import {
  arangoCursorReply,
  arangoErrorReply,
  arangoOkReply,
  closedPortUrl,
  FakeArangoReply,
  FakeArangoRequest,
  FakeArangoServer,
  startFakeArango,
} from '../../../test/support/fake-arango.server';
import { AppError } from '../../errors/app-error';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { graphChangeSet } from '../graph-change-set';
import { ArangoCapabilities } from './arango-capabilities';
import { ArangoGraphStore } from './arango-graph.store';

/**
 * The store's orchestration (transactions, result handling, failure mapping) through the real arangojs
 * driver over a real socket, against a local server that scripts ArangoDB's REST answers. What AQL
 * itself does is covered by the contract suite on a real ArangoDB (ARANGO_URL).
 */

const NO_INDEX: ArangoCapabilities = { version: '3.12.4', vectorIndex: null };

interface CursorBody {
  query: string;
  bindVars: Record<string, unknown>;
}

function transactionReply(status: 'running' | 'committed' | 'aborted'): FakeArangoReply {
  return arangoOkReply({ result: { id: 'trx-1', status } });
}

/** "REMOVE nodius_edges", "INSERT nodius_nodes", … or "read" for a query that writes nothing. */
function describeWrite(request: FakeArangoRequest): string {
  const { query, bindVars } = request.body as CursorBody;
  const write = query.match(/\b(REMOVE|INSERT|REPLACE|UPDATE)\b[\s\S]*?\b(?:IN|INTO) @(@\w+)/);
  return write ? `${write[1]} ${String(bindVars[write[2]])}` : 'read';
}

function queryOf(request: FakeArangoRequest): string {
  return (request.body as CursorBody).query.replace(/\s+/g, ' ').trim();
}

async function expectAppError(promise: Promise<unknown>, code: string): Promise<AppError> {
  const error = await appErrorOf(promise);
  expect(error.code).toBe(code);
  return error;
}

describe(ArangoGraphStore.name, () => {
  let db: Database;
  beforeEach(() => setLogSink(() => undefined));
  afterEach(() => resetLogSink());

  it('leaves the connection open on close(): it belongs to whoever opened it (ArangoPersistenceModule)', async () => {
    const connection = new Database({ url: 'http://127.0.0.1:1', databaseName: 'nodius' });
    const close = jest.spyOn(connection, 'close');
    await new ArangoGraphStore(connection, NO_INDEX).close();
    expect(close).not.toHaveBeenCalled();
    connection.close();
  });

  describe('when the server is unreachable', () => {
    let store: ArangoGraphStore;

    beforeAll(async () => {
      db = new Database({ url: await closedPortUrl(), databaseName: 'nodius' });
      store = new ArangoGraphStore(db, NO_INDEX);
    });
    afterAll(async () => {
      await store.close();
      db.close();
    });

    it('reports itself down in health() with a detail, without throwing', async () => {
      const health = await store.health();
      expect(health).toMatchObject({ status: 'down', kind: 'arango' });
      expect(health.detail).toMatch(/ArangoDB unreachable/);
    });

    it('fails reads, transactions and imports with store_unavailable (503, retryable), never a crash', async () => {
      const source = store.forWorkspace('default');
      for (const call of [
        source.getGraph('g'),
        source.searchNodes('g', 'fetch players', 5),
        source.applyChanges('g', graphChangeSet({ nodeKeysToDelete: ['a'] })),
        store.importGraph('default', {
          graph: { _key: 'g', workspace: 'default', name: 'G', sheetsList: {} },
          nodes: [],
          edges: [],
          nodeConfigs: [],
        }),
        store.listGraphs(),
      ]) {
        const error = await expectAppError(call, 'store_unavailable');
        expect(error).toMatchObject({ statusCode: 503, retryable: true });
      }
    });
  });

  describe('against a scripted server', () => {
    let server: FakeArangoServer;
    let script: (request: FakeArangoRequest) => FakeArangoReply | undefined;
    let store: ArangoGraphStore;

    beforeAll(async () => {
      server = await startFakeArango((request) => {
        if (request.path.endsWith('/_api/version'))
          return { status: 200, body: { server: 'arango', version: '3.12.4', license: 'community' } };
        if (request.path.endsWith('/_api/transaction/begin')) return transactionReply('running');
        if (request.method === 'PUT' && request.path.endsWith('/_api/transaction/trx-1'))
          return transactionReply('committed');
        if (request.method === 'DELETE' && request.path.endsWith('/_api/transaction/trx-1'))
          return transactionReply('aborted');
        return script(request) ?? arangoCursorReply([]);
      });
    });
    afterAll(() => server.close());

    beforeEach(() => {
      server.requests.length = 0;
      script = () => undefined;
      db = new Database({ url: server.url, databaseName: 'nodius' });
      store = new ArangoGraphStore(db, NO_INDEX);
    });
    afterEach(async () => {
      await store.close();
      db.close();
    });

    const cursorRequests = (): FakeArangoRequest[] =>
      server.requests.filter((request) => request.path.endsWith('/_api/cursor'));

    it('reports itself up with the server version', async () => {
      await expect(store.health()).resolves.toEqual({ status: 'up', kind: 'arango', detail: 'ArangoDB 3.12.4' });
    });

    it('reads nodes with local keys, sending the workspace and graph key as bind variables', async () => {
      script = () =>
        arangoCursorReply([
          { _key: 'g-1-fetch-api', graphKey: 'g-1', type: 'api-call', sheet: '0', posX: 0, posY: 0, extra: 1 },
        ]);
      const nodes = await store.forWorkspace('acme').getNodes('g-1');
      expect(nodes).toEqual([
        { _key: 'fetch-api', graphKey: 'g-1', type: 'api-call', sheet: '0', posX: 0, posY: 0, extra: 1 },
      ]);
      const { bindVars } = cursorRequests()[0].body as CursorBody;
      expect(Object.values(bindVars)).toEqual(expect.arrayContaining(['acme', 'g-1', 'nodius_nodes', 'nodius_graphs']));
    });

    it('returns batch lookups in the order asked, skipping unknown keys, in one query', async () => {
      script = () =>
        arangoCursorReply([
          { _key: 'g-b', graphKey: 'g' },
          { _key: 'g-a', graphKey: 'g' },
        ]);
      const nodes = await store.forWorkspace('w').getNodesByKeys('g', ['a', 'ghost', 'b', 'a']);
      expect(nodes.map((node) => node._key)).toEqual(['a', 'b']);
      expect(cursorRequests()).toHaveLength(1);
      await store.forWorkspace('w').getNodesByKeys('g', []);
      expect(cursorRequests()).toHaveLength(1);
    });

    it('ranks search hits by exact-match tier first, keeping scores > 0 and best first', async () => {
      script = () =>
        arangoCursorReply([
          { node: { _key: 'g-process-heavy', graphKey: 'g' }, score: 5, tier: 0 },
          { node: { _key: 'g-fetch-api', graphKey: 'g' }, score: 2, tier: 2 },
          { node: { _key: 'g-typed', graphKey: 'g' }, score: 1, tier: 1 },
        ]);
      const hits = await store.forWorkspace('w').searchNodes('g', 'fetch api', 2);
      expect(hits.map((hit) => [hit.node._key, hit.score])).toEqual([
        ['fetch-api', 14],
        ['typed', 7],
      ]);
      await expect(store.forWorkspace('w').searchNodes('g', '   ', 5)).resolves.toEqual([]);
      expect(cursorRequests()).toHaveLength(1);
    });

    it('lists the neighbourhood start node first, then by depth', async () => {
      script = () =>
        arangoCursorReply([
          {
            start: { _key: 'g-root', graphKey: 'g' },
            reached: [
              { node: { _key: 'g-far', graphKey: 'g' }, depth: 2 },
              { node: { _key: 'g-near', graphKey: 'g' }, depth: 1 },
            ],
            edges: [
              { _key: 'g-e', graphKey: 'g', _from: 'nodius_nodes/g-root', _to: 'nodius_nodes/g-near', sheet: '0' },
            ],
          },
        ]);
      const neighborhood = await store.forWorkspace('w').getNeighborhood('g', 'root', 2, 'out');
      expect(neighborhood.nodes.map((node) => node._key)).toEqual(['root', 'near', 'far']);
      expect(neighborhood.edges).toEqual([expect.objectContaining({ _key: 'e', source: 'root', target: 'near' })]);
      expect(queryOf(cursorRequests()[0])).toContain('OUTBOUND');
    });

    it('applies a change set in one stream transaction: state read, planned writes in order, commit', async () => {
      script = (request) =>
        queryOf(request).includes('owned: owner != null')
          ? arangoCursorReply([
              {
                owned: true,
                nodes: [
                  { _key: 'g-old', graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0 },
                  { _key: 'g-kept', graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0, data: { y: 2 } },
                ],
                edges: [],
              },
            ])
          : queryOf(request).includes('UPDATE n WITH {}')
            ? arangoCursorReply(['g-kept'])
            : undefined;
      await store.forWorkspace('w').applyChanges(
        'g',
        graphChangeSet({
          nodeKeysToDelete: ['old'],
          nodesToCreate: [{ _key: 'new', graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0 }],
          edgesToCreate: [
            {
              _key: 'e',
              graphKey: 'g',
              sheet: '0',
              source: 'new',
              sourceHandle: 'R',
              target: 'kept',
              targetHandle: 'L',
            },
          ],
          instructions: [
            { nodeKey: 'kept', op: 'set', path: ['data', 'x'], value: 1 },
            { nodeKey: 'kept', op: 'set', path: ['posX'], value: 5 },
          ],
        }),
      );
      const begin = server.requests[0];
      expect(begin.path).toBe('/_db/nodius/_api/transaction/begin');
      expect(begin.body).toMatchObject({
        collections: { read: ['nodius_graphs'], write: ['nodius_nodes', 'nodius_edges'] },
      });
      const steps = cursorRequests();
      expect(steps.every((request) => request.transactionId === 'trx-1')).toBe(true);
      expect(steps.map(describeWrite)).toEqual([
        'read',
        'REMOVE nodius_edges',
        'REMOVE nodius_nodes',
        'INSERT nodius_nodes',
        'REPLACE nodius_nodes',
        // The existing endpoint of the new edge is written (not the one created here): a concurrent
        // deletion of it conflicts with this transaction instead of leaving the edge dangling.
        'UPDATE nodius_nodes',
        'INSERT nodius_edges',
      ]);
      expect(Object.values((steps[5].body as CursorBody).bindVars)).toEqual(expect.arrayContaining([['g-kept']]));
      const [replacement] = Object.values((steps[4].body as CursorBody).bindVars).find(Array.isArray) as Array<{
        document: object;
        keepVector: boolean;
      }>;
      // data changed: the stored vector is dropped with the old content.
      expect(replacement).toEqual({
        document: expect.objectContaining({ _key: 'g-kept', posX: 5, data: { y: 2, x: 1 } }),
        keepVector: false,
      });
      expect(Object.values((steps[1].body as CursorBody).bindVars)).toEqual(
        expect.arrayContaining([['nodius_nodes/g-old']]),
      );
      expect(server.requests.at(-1)).toMatchObject({ method: 'PUT', path: '/_db/nodius/_api/transaction/trx-1' });
    });

    it('refuses (conflict, retryable, nothing committed) an edge to a node deleted since the state was read', async () => {
      script = (request) =>
        queryOf(request).includes('owned: owner != null')
          ? arangoCursorReply([
              {
                owned: true,
                nodes: [
                  { _key: 'g-a', graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0 },
                  { _key: 'g-b', graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0 },
                ],
                edges: [],
              },
            ])
          : queryOf(request).includes('UPDATE n WITH {}')
            ? arangoCursorReply(['g-a'])
            : undefined;
      const error = await expectAppError(
        store.forWorkspace('w').applyChanges(
          'g',
          graphChangeSet({
            edgesToCreate: [
              { _key: 'e', graphKey: 'g', sheet: '0', source: 'a', sourceHandle: 'R', target: 'b', targetHandle: 'L' },
            ],
          }),
        ),
        'conflict',
      );
      expect(error.retryable).toBe(true);
      expect(cursorRequests().map(describeWrite)).not.toContain('INSERT nodius_edges');
      expect(server.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/_db/nodius/_api/transaction/trx-1' });
    });

    it('keeps the stored vector of a node that was only moved', async () => {
      script = (request) =>
        queryOf(request).includes('owned: owner != null')
          ? arangoCursorReply([
              {
                owned: true,
                nodes: [{ _key: 'g-a', graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0, process: 'x()' }],
                edges: [],
              },
            ])
          : undefined;
      await store
        .forWorkspace('w')
        .updateNode('g', { _key: 'a', graphKey: 'g', type: 't', sheet: '0', posX: 40, posY: 0, process: 'x()' });
      const replace = cursorRequests().find(
        (request) => describeWrite(request) === 'REPLACE nodius_nodes',
      ) as FakeArangoRequest;
      const [replacement] = Object.values((replace.body as CursorBody).bindVars).find(Array.isArray) as Array<{
        keepVector: boolean;
      }>;
      expect(replacement.keepVector).toBe(true);
    });

    it('aborts the transaction and writes nothing when the change set is invalid', async () => {
      script = () =>
        arangoCursorReply([
          { owned: true, nodes: [{ _key: 'g-a', graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0 }], edges: [] },
        ]);
      const error = await expectAppError(
        store.forWorkspace('w').createEdge('g', {
          _key: 'e',
          graphKey: 'g',
          sheet: '0',
          source: 'a',
          sourceHandle: 'R',
          target: 'ghost',
          targetHandle: 'L',
        }),
        'bad_request',
      );
      expect(error.message).toMatch(/would dangle: its target node "ghost"/);
      expect(cursorRequests()).toHaveLength(1);
      expect(server.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/_db/nodius/_api/transaction/trx-1' });
    });

    it('answers not_found for a graph of another workspace, on writes as on reads', async () => {
      script = () => arangoCursorReply([{ owned: false, nodes: [], edges: [] }]);
      await expectAppError(store.forWorkspace('intruder').deleteNode('g', 'a'), 'not_found');
      script = () => arangoCursorReply([]);
      await expect(store.forWorkspace('intruder').getGraph('g')).resolves.toBeNull();
      await expect(store.exportGraph('intruder', 'g')).resolves.toBeNull();
      await expectAppError(store.saveEmbeddings('intruder', 'g', []), 'not_found');
    });

    it('maps a unique-key violation raised during the writes to conflict, after aborting', async () => {
      script = (request) =>
        queryOf(request).includes('owned: owner != null')
          ? arangoCursorReply([{ owned: true, nodes: [], edges: [] }])
          : arangoErrorReply(409, 1210, 'unique constraint violated');
      await expectAppError(
        store.forWorkspace('w').createNode('g', { _key: 'a', graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0 }),
        'conflict',
      );
      expect(server.requests.at(-1)?.method).toBe('DELETE');
    });

    it('refuses to import over a graph key that another workspace owns', async () => {
      script = () => arangoCursorReply([{ graphWorkspace: 'other', foreignConfigs: [], vectors: [] }]);
      const graph = { _key: 'g', workspace: 'mine', name: 'G', sheetsList: {} };
      await expectAppError(store.importGraph('mine', { graph, nodes: [], edges: [], nodeConfigs: [] }), 'conflict');
      expect(server.requests.at(-1)?.method).toBe('DELETE');
    });

    it('refuses a created node or edge key ArangoDB could not store with bad_request naming it, before any request', async () => {
      const node = { _key: 'my node', graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0 };
      const error = await expectAppError(store.forWorkspace('w').createNode('g', node), 'bad_request');
      expect(error.message).toMatch(
        /^Node key "my node" cannot be stored: it holds characters ArangoDB does not allow/,
      );
      expect(error.details).toMatchObject({ nodeKey: 'my node', rule: expect.stringContaining('254 bytes') });
      const edge = {
        _key: 'e'.repeat(260),
        graphKey: 'g',
        sheet: '0',
        source: 'a',
        sourceHandle: 'R',
        target: 'b',
        targetHandle: 'L',
      };
      expect(
        (
          await expectAppError(
            store.forWorkspace('w').applyChanges('g', graphChangeSet({ edgesToCreate: [edge] })),
            'bad_request',
          )
        ).message,
      ).toMatch(/^Edge key "e+" cannot be stored: it is 260 bytes long/);
      expect(server.requests).toEqual([]);
    });

    it('maps a key the server refuses anyway (error 1221) to bad_request, after aborting', async () => {
      script = (request) =>
        queryOf(request).includes('owned: owner != null')
          ? arangoCursorReply([{ owned: true, nodes: [], edges: [] }])
          : arangoErrorReply(400, 1221, 'illegal document key');
      await expectAppError(
        store.forWorkspace('w').createNode('g', { _key: 'a', graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0 }),
        'bad_request',
      );
      expect(server.requests.at(-1)?.method).toBe('DELETE');
    });

    it('lists keys ArangoDB could not store among the import problems, before any request', async () => {
      const graph = { _key: 'g', workspace: 'mine', name: 'G', sheetsList: { '0': 'main' } };
      const nodes = [{ _key: 'a b', graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0 }];
      const error = await expectAppError(
        store.importGraph('mine', {
          graph,
          nodes,
          edges: [],
          nodeConfigs: [{ _key: 'c#1', workspace: 'mine', displayName: 'C' }],
        }),
        'bad_request',
      );
      expect((error.details as Array<{ field: string }>).map((problem) => problem.field)).toEqual([
        'nodes[0]._key',
        'nodeConfigs[0]._key',
      ]);
      expect(server.requests).toEqual([]);
    });

    it('refuses to import a graph key that another graph key extends with "-", or that extends one: their node keys could collide', async () => {
      script = () =>
        arangoCursorReply([{ graphWorkspace: null, clashingGraph: true, foreignConfigs: [], vectors: [] }]);
      const graph = { _key: 'a-b', workspace: 'mine', name: 'G', sheetsList: {} };
      const error = await expectAppError(
        store.importGraph('mine', { graph, nodes: [], edges: [], nodeConfigs: [] }),
        'conflict',
      );
      expect(error.message).toMatch(
        /^Graph key "a-b" cannot be used: another graph's key extends it, or is extended by it, with "-"/,
      );
      expect(server.requests.at(-1)?.method).toBe('DELETE');
      const importState = cursorRequests()[0].body as CursorBody;
      expect(importState.query).toMatch(/STARTS_WITH\(g\._key, @\w+\) OR STARTS_WITH\(@\w+, CONCAT\(g\._key, @\w+\)\)/);
      expect(Object.values(importState.bindVars)).toEqual(expect.arrayContaining(['a-b', 'a-b-', '-']));
    });

    it('imports a graph in one transaction, keeping the vectors of nodes whose content did not change', async () => {
      script = (request) =>
        queryOf(request).includes('graphWorkspace')
          ? arangoCursorReply([
              {
                graphWorkspace: 'default',
                foreignConfigs: [],
                vectors: [
                  {
                    _key: 'g-a',
                    type: 't',
                    process: 'same()',
                    embedding: [1, 0],
                    embeddingModel: 'm',
                    embeddingHash: 'ha',
                  },
                  {
                    _key: 'g-b',
                    type: 't',
                    process: 'old()',
                    embedding: [0, 1],
                    embeddingModel: 'm',
                    embeddingHash: 'hb',
                  },
                ],
              },
            ])
          : undefined;
      const result = await store.importGraph('default', {
        graph: { _key: 'g', workspace: 'ignored', name: 'G', sheetsList: { '0': 'main' } },
        nodes: [
          { _key: 'a', graphKey: 'g', type: 't', sheet: '0', posX: 99, posY: 0, process: 'same()' },
          { _key: 'b', graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0, process: 'new()' },
        ],
        edges: [
          { _key: 'e', graphKey: 'g', sheet: '0', source: 'a', sourceHandle: 'R', target: 'b', targetHandle: 'L' },
        ],
        nodeConfigs: [{ _key: 't', workspace: 'ignored', displayName: 'T' }],
      });
      expect(result).toEqual({ nodes: 2, edges: 1 });
      expect(server.requests[0].body).toMatchObject({
        collections: { write: ['nodius_graphs', 'nodius_nodes', 'nodius_edges', 'nodius_node_config'] },
      });
      const steps = cursorRequests();
      expect(steps.map(describeWrite)).toEqual([
        'read',
        'REMOVE nodius_edges',
        'REMOVE nodius_nodes',
        'INSERT nodius_graphs',
        'INSERT nodius_nodes',
        'INSERT nodius_edges',
        'INSERT nodius_node_config',
      ]);
      const bindValues = (index: number) => Object.values((steps[index].body as CursorBody).bindVars);
      expect(bindValues(3)).toContainEqual(expect.objectContaining({ _key: 'g', workspace: 'default' }));
      const nodeDocs = bindValues(4).find(Array.isArray) as Array<Record<string, unknown>>;
      expect(nodeDocs[0]).toMatchObject({
        _key: 'g-a',
        posX: 99,
        embedding: [1, 0],
        embeddingModel: 'm',
        embeddingHash: 'ha',
      });
      expect(nodeDocs[1]).not.toHaveProperty('embedding');
      const edgeDocs = bindValues(5).find(Array.isArray) as Array<Record<string, unknown>>;
      expect(edgeDocs[0]).toMatchObject({ _key: 'g-e', _from: 'nodius_nodes/g-a', _to: 'nodius_nodes/g-b' });
      expect(bindValues(6).find(Array.isArray)).toEqual([expect.objectContaining({ _key: 't', workspace: 'default' })]);
      expect(server.requests.at(-1)?.method).toBe('PUT');
    });

    it('refuses an inconsistent graph before opening a transaction, listing every problem', async () => {
      const error = await expectAppError(
        store.importGraph('default', {
          graph: { _key: 'g', workspace: 'default', name: 'G', sheetsList: { '0': 'main' } },
          nodes: [{ _key: 'a', graphKey: 'g', type: 't', sheet: 'nope', posX: 0, posY: 0 }],
          edges: [
            {
              _key: 'e',
              graphKey: 'g',
              sheet: '0',
              source: 'a',
              sourceHandle: 'R',
              target: 'ghost',
              targetHandle: 'L',
            },
          ],
          nodeConfigs: [],
        }),
        'bad_request',
      );
      expect((error.details as Array<{ field: string }>).map((problem) => problem.field)).toEqual([
        'nodes[0].sheet',
        'edges[0].target',
      ]);
      expect(server.requests).toEqual([]);
    });

    describe('vector search with a vector index', () => {
      const INDEXED: ArangoCapabilities = {
        version: '3.12.7',
        vectorIndex: {
          name: 'vec',
          dimension: 2,
          nLists: 100,
          defaultNProbe: 1,
          storedValues: ['graphKey', 'embeddingModel'],
        },
      };
      const kindOf = (request: FakeArangoRequest): string => {
        const text = queryOf(request);
        if (text.includes('APPROX_NEAR_COSINE')) return 'indexed';
        if (text.includes('COSINE_SIMILARITY')) return 'exact';
        return text.includes('RETURN COUNT(') ? 'count' : 'other';
      };
      const bindVarsOf = (request: FakeArangoRequest): Record<string, unknown> => (request.body as CursorBody).bindVars;
      const search = (vector = [1, 0]) =>
        store
          .forWorkspace('w')
          .searchNodesByVector('g', { vector: new Float32Array(vector), model: 'm', minScore: 0.3 }, 3);

      /** Answers the count with `graphNodes`, the indexed search with `indexed`, the exact scan with one hit. */
      function serve(
        graphNodes: number | null,
        indexed: () => FakeArangoReply = () =>
          arangoCursorReply([{ node: { _key: 'g-i', graphKey: 'g' }, score: 0.8 }]),
      ): void {
        script = (request) => {
          const kind = kindOf(request);
          if (kind === 'count') return arangoCursorReply(graphNodes === null ? [] : [graphNodes]);
          if (kind === 'indexed') return indexed();
          return arangoCursorReply([{ node: { _key: 'g-a', graphKey: 'g' }, score: 0.9 }]);
        };
      }

      beforeEach(() => {
        store = new ArangoGraphStore(db, INDEXED, { vectorExactScanBelow: 1_000 });
      });

      it('goes through the index for a graph of the size that needs it, probing the clusters the plan asks for', async () => {
        serve(20_000);
        expect(await search()).toEqual([{ node: expect.objectContaining({ _key: 'i' }), score: 0.8 }]);
        const requests = cursorRequests();
        expect(requests.map(kindOf)).toEqual(['count', 'indexed']);
        // 100 lists, 3 results, 20,000 nodes: the √100 = 10 floor applies.
        expect(Object.values(bindVarsOf(requests[1]))).toContain(10);
      });

      it('scans a graph below the size exactly, without touching the index', async () => {
        serve(999);
        expect(await search()).toEqual([{ node: expect.objectContaining({ _key: 'a' }), score: 0.9 }]);
        expect(cursorRequests().map(kindOf)).toEqual(['count', 'exact']);
      });

      it('answers nothing for a graph outside the workspace, after the guarded count alone', async () => {
        serve(null);
        expect(await search()).toEqual([]);
        expect(cursorRequests().map(kindOf)).toEqual(['count']);
      });

      it.each([
        ['the index cannot be applied (1554)', () => arangoErrorReply(400, 1554, 'vector search not applied')],
        ['the index is not trained (1555)', () => arangoErrorReply(400, 1555, 'vector index not ready')],
        ['the server fails (500)', () => arangoErrorReply(500, 4, 'out of memory')],
        ['a permission is missing (403)', () => arangoErrorReply(403, 11, 'forbidden')],
      ])('falls back to the exact scan when %s', async (_case, failure) => {
        serve(20_000, failure);
        expect(await search()).toEqual([{ node: expect.objectContaining({ _key: 'a' }), score: 0.9 }]);
        expect(cursorRequests().map(kindOf)).toEqual(['count', 'indexed', 'exact']);
      });

      it('fails with store_unavailable, without a second try, when the server is unavailable (503)', async () => {
        serve(20_000, () => arangoErrorReply(503, 503, 'service unavailable'));
        await expectAppError(search(), 'store_unavailable');
        expect(cursorRequests().map(kindOf)).toEqual(['count', 'indexed']);
      });

      it('scans exactly, without counting, when the query vector has another dimension than the index', async () => {
        serve(20_000);
        await search([1, 0, 0]);
        expect(cursorRequests().map(kindOf)).toEqual(['exact']);
      });
    });
  });
});
