import { Database } from 'arangojs';
import {
  apiPathOf,
  arangoErrorReply,
  arangoOkReply,
  FakeArangoCollections,
  fakeCollectionReply,
  FakeArangoReply,
  FakeArangoRequest,
  FakeArangoServer,
  startFakeArango,
} from '../../../test/support/fake-arango.server';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { ARANGO_GRAPH_NAMES } from './arango-graph.names';
import { ArangoGraphSchema } from './arango-graph.schema';
import { NODE_SEARCH_LINK } from './arango-search.definitions';

/** The schema ArangoDB would hold, served over the REST paths arangojs calls. */
interface FakeSchema extends FakeArangoCollections {
  version: string;
  analyzers: Set<string>;
  views: Map<string, { links: Record<string, unknown> }>;
  indexes: Array<Record<string, unknown>>;
}

function serve(schema: FakeSchema, request: FakeArangoRequest): FakeArangoReply {
  const path = apiPathOf(request);
  let match: RegExpMatchArray | null;
  if (path === '/_api/version')
    return arangoOkReply({ server: 'arango', version: schema.version, license: 'community' });
  const collectionReply = fakeCollectionReply(schema, request);
  if (collectionReply) return collectionReply;
  if (path === '/_api/index') {
    if (request.method === 'POST') return arangoOkReply({ isNewlyCreated: true, ...(request.body as object) }, 201);
    return arangoOkReply({ indexes: request.query.collection === ARANGO_GRAPH_NAMES.nodes ? schema.indexes : [] });
  }
  if ((match = path.match(/^\/_api\/analyzer\/(.+)$/))) {
    return schema.analyzers.has(decodeURIComponent(match[1]))
      ? arangoOkReply({ name: match[1] })
      : arangoErrorReply(404, 1202, 'analyzer not found');
  }
  if (path === '/_api/analyzer' && request.method === 'POST') {
    schema.analyzers.add((request.body as { name: string }).name);
    return { status: 201, body: { error: false, ...(request.body as object) } };
  }
  if ((match = path.match(/^\/_api\/view\/([^/]+)(\/properties)?$/))) {
    const view = schema.views.get(match[1]);
    if (!view) return arangoErrorReply(404, 1203, 'view not found');
    if (request.method === 'PATCH') Object.assign(view.links, (request.body as { links: object }).links);
    return arangoOkReply({ name: match[1], type: 'arangosearch', links: view.links });
  }
  if (path === '/_api/view' && request.method === 'POST') {
    const { name, links } = request.body as { name: string; links: Record<string, unknown> };
    schema.views.set(name, { links });
    return { status: 201, body: { error: false, name, links } };
  }
  return arangoErrorReply(501, 9, `unscripted ${request.method} ${path}`);
}

function emptySchema(version = '3.12.4'): FakeSchema {
  return { version, types: new Map(), analyzers: new Set(), views: new Map(), indexes: [] };
}

/** A Nodius database this service already set up once. */
function preparedSchema(version = '3.12.4'): FakeSchema {
  return {
    version,
    types: new Map([
      [ARANGO_GRAPH_NAMES.graphs, 2],
      [ARANGO_GRAPH_NAMES.nodes, 2],
      [ARANGO_GRAPH_NAMES.edges, 3],
      [ARANGO_GRAPH_NAMES.nodeConfigs, 2],
      [ARANGO_GRAPH_NAMES.threads, 2],
    ]),
    analyzers: new Set([ARANGO_GRAPH_NAMES.proseAnalyzer, ARANGO_GRAPH_NAMES.identifierAnalyzer]),
    // The server reports analyzer names with their database prefix.
    views: new Map([
      [
        ARANGO_GRAPH_NAMES.searchView,
        {
          links: {
            [ARANGO_GRAPH_NAMES.nodes]: {
              ...NODE_SEARCH_LINK,
              fields: Object.fromEntries(
                Object.entries(NODE_SEARCH_LINK.fields ?? {}).map(([field, options]) => [
                  field,
                  {
                    analyzers: (options.analyzers ?? []).map((name) =>
                      name === 'identity' ? name : `nodius::${name}`,
                    ),
                  },
                ]),
              ),
            },
          },
        },
      ],
    ]),
    indexes: [{ type: 'primary', fields: ['_key'] }],
  };
}

describe(ArangoGraphSchema.name, () => {
  let server: FakeArangoServer;
  let schema: FakeSchema;
  let db: Database;

  beforeAll(async () => {
    server = await startFakeArango((request) => serve(schema, request));
  });
  afterAll(() => server.close());
  beforeEach(() => {
    setLogSink(() => undefined);
    server.requests.length = 0;
    db = new Database({ url: server.url, databaseName: 'nodius' });
  });
  afterEach(() => {
    db.close();
    resetLogSink();
  });

  const writes = (): string[] =>
    server.requests
      .filter((request) => request.method !== 'GET')
      .map((request) => `${request.method} ${request.path.replace('/_db/nodius', '')}`);

  it('creates what an empty database lacks: collections (nodius_edges as an edge collection), indexes, analyzers, view', async () => {
    schema = emptySchema();
    const capabilities = await new ArangoGraphSchema(db).ensure();
    expect(capabilities).toEqual({ version: '3.12.4', vectorIndex: null });
    expect(Object.fromEntries(schema.types)).toEqual({
      [ARANGO_GRAPH_NAMES.graphs]: 2,
      [ARANGO_GRAPH_NAMES.nodes]: 2,
      [ARANGO_GRAPH_NAMES.nodeConfigs]: 2,
      [ARANGO_GRAPH_NAMES.threads]: 2,
      [ARANGO_GRAPH_NAMES.edges]: 3,
    });
    const indexes = server.requests.filter(
      (request) => request.method === 'POST' && request.path.endsWith('/_api/index'),
    );
    expect(indexes.map((request) => [request.query.collection, request.body])).toEqual([
      [ARANGO_GRAPH_NAMES.nodes, { type: 'persistent', fields: ['graphKey'], inBackground: true }],
      [ARANGO_GRAPH_NAMES.edges, { type: 'persistent', fields: ['graphKey'], inBackground: true }],
      [ARANGO_GRAPH_NAMES.graphs, { type: 'persistent', fields: ['workspace'], inBackground: true }],
      [ARANGO_GRAPH_NAMES.nodeConfigs, { type: 'persistent', fields: ['workspace'], inBackground: true }],
    ]);
    expect([...schema.analyzers].sort()).toEqual([
      ARANGO_GRAPH_NAMES.identifierAnalyzer,
      ARANGO_GRAPH_NAMES.proseAnalyzer,
    ]);
    expect(schema.views.get(ARANGO_GRAPH_NAMES.searchView)?.links).toEqual({
      [ARANGO_GRAPH_NAMES.nodes]: NODE_SEARCH_LINK,
    });
    expect(NODE_SEARCH_LINK.inBackground).toBe(true);
  });

  it('leaves a database it already prepared alone: only the idempotent index ensures are sent', async () => {
    schema = preparedSchema();
    await new ArangoGraphSchema(db).ensure();
    expect(writes()).toEqual(Array(4).fill('POST /_api/index'));
  });

  it('repairs the view link when its fields or analyzers differ, without recreating the view', async () => {
    schema = preparedSchema();
    const view = schema.views.get(ARANGO_GRAPH_NAMES.searchView) as {
      links: Record<string, { fields: Record<string, unknown> }>;
    };
    delete view.links[ARANGO_GRAPH_NAMES.nodes].fields.aiSearchData;
    await new ArangoGraphSchema(db).ensure();
    expect(writes()).toContain(`PATCH /_api/view/${ARANGO_GRAPH_NAMES.searchView}/properties`);
    expect(writes()).not.toContain('POST /_api/view');
    expect(view.links[ARANGO_GRAPH_NAMES.nodes]).toEqual(NODE_SEARCH_LINK);
  });

  it('leaves the link alone as the server reports it: default analyzers left out, custom ones prefixed with the database', async () => {
    schema = preparedSchema();
    const link = (
      schema.views.get(ARANGO_GRAPH_NAMES.searchView) as {
        links: Record<string, { fields: Record<string, { analyzers?: string[] }> }>;
      }
    ).links[ARANGO_GRAPH_NAMES.nodes];
    // graphKey wants ["identity"], which is the default: ArangoDB answers the field without analyzers.
    link.fields.graphKey = {};
    await new ArangoGraphSchema(db).ensure();
    expect(writes()).not.toContain(`PATCH /_api/view/${ARANGO_GRAPH_NAMES.searchView}/properties`);
  });

  it('repairs the link when a field without analyzers inherits a link default other than identity', async () => {
    schema = preparedSchema();
    const link = (
      schema.views.get(ARANGO_GRAPH_NAMES.searchView) as {
        links: Record<string, { analyzers?: string[]; fields: Record<string, object> }>;
      }
    ).links[ARANGO_GRAPH_NAMES.nodes];
    link.analyzers = [`nodius::${ARANGO_GRAPH_NAMES.proseAnalyzer}`];
    link.fields.graphKey = {};
    await new ArangoGraphSchema(db).ensure();
    expect(writes()).toContain(`PATCH /_api/view/${ARANGO_GRAPH_NAMES.searchView}/properties`);
  });

  it('moves the link to the current identifier analyzer (v1 → v2), in the background, creating the analyzer first', async () => {
    schema = preparedSchema();
    schema.analyzers.delete(ARANGO_GRAPH_NAMES.identifierAnalyzer);
    schema.analyzers.add('nodius_ai_identifier_v1');
    const view = schema.views.get(ARANGO_GRAPH_NAMES.searchView) as {
      links: Record<string, { fields: Record<string, { analyzers?: string[] }> }>;
    };
    for (const field of Object.values(view.links[ARANGO_GRAPH_NAMES.nodes].fields)) {
      field.analyzers = field.analyzers?.map((name) =>
        name.replace(ARANGO_GRAPH_NAMES.identifierAnalyzer, 'nodius_ai_identifier_v1'),
      );
    }
    await new ArangoGraphSchema(db).ensure();
    expect(writes()).toEqual([
      ...Array(4).fill('POST /_api/index'),
      'POST /_api/analyzer',
      `PATCH /_api/view/${ARANGO_GRAPH_NAMES.searchView}/properties`,
    ]);
    const patch = server.requests.find((request) => request.method === 'PATCH')?.body as {
      links: Record<string, { inBackground: boolean }>;
    };
    expect(patch.links[ARANGO_GRAPH_NAMES.nodes]).toEqual(NODE_SEARCH_LINK);
    expect(patch.links[ARANGO_GRAPH_NAMES.nodes].inBackground).toBe(true);
  });

  it('refuses to run on a nodius_edges that is not an edge collection', async () => {
    schema = preparedSchema();
    schema.types.set(ARANGO_GRAPH_NAMES.edges, 2);
    await expect(new ArangoGraphSchema(db).ensure()).rejects.toThrow(
      `Collection ${ARANGO_GRAPH_NAMES.edges} exists but is not an edge collection`,
    );
  });

  it('accepts losing a creation race to another instance starting at the same time', async () => {
    schema = { ...emptySchema(), loseCreationRace: true };
    await expect(new ArangoGraphSchema(db).ensure()).resolves.toMatchObject({ version: '3.12.4' });
  });

  it('reports a usable cosine vector index from 3.12.6 on, listing indexes with the hidden ones (still building, per-shard details)', async () => {
    schema = preparedSchema('3.12.7');
    schema.indexes.push({
      type: 'vector',
      name: 'nodius_ai_embedding_cosine',
      fields: ['embedding'],
      storedValues: ['graphKey', 'embeddingModel'],
      params: { metric: 'cosine', dimension: 1536, nLists: 40, defaultNProbe: 7 },
    });
    await expect(new ArangoGraphSchema(db).ensure()).resolves.toEqual({
      version: '3.12.7',
      vectorIndex: {
        name: 'nodius_ai_embedding_cosine',
        dimension: 1536,
        nLists: 40,
        defaultNProbe: 7,
        storedValues: ['graphKey', 'embeddingModel'],
      },
    });
    const listing = server.requests.find((request) => request.method === 'GET' && request.path.endsWith('/_api/index'));
    expect(listing?.query).toMatchObject({ collection: ARANGO_GRAPH_NAMES.nodes, withHidden: 'true' });
  });

  it('leaves an untrained vector index unused and says why', async () => {
    schema = preparedSchema('3.12.9');
    schema.indexes.push({
      type: 'vector',
      name: 'nodius_ai_embedding_cosine',
      fields: ['embedding'],
      trainingState: 'unusable',
      errorMessage: 'not enough training data for vector index',
      params: { metric: 'cosine', dimension: 1536, nLists: 40 },
    });
    const logs: Array<Record<string, unknown>> = [];
    setLogSink((entry) => logs.push(entry as unknown as Record<string, unknown>));
    await expect(new ArangoGraphSchema(db).ensure()).resolves.toEqual({ version: '3.12.9', vectorIndex: null });
    expect(logs).toContainEqual(
      expect.objectContaining({
        event: 'arango_vector_index_ignored',
        index: 'nodius_ai_embedding_cosine',
        reason: expect.stringContaining('not enough training data'),
      }),
    );
  });
});
