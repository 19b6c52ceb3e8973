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
import { ARANGO_THREAD_NAMES } from './arango-thread.names';
import { ArangoThreadSchema, TTL_FIELD } from './arango-thread.schema';

/** The collections ArangoDB would hold, served over the REST paths arangojs calls; index creations succeed. */
function serve(state: FakeArangoCollections, request: FakeArangoRequest): FakeArangoReply {
  const collectionReply = fakeCollectionReply(state, request);
  if (collectionReply) return collectionReply;
  const path = apiPathOf(request);
  if (path === '/_api/index' && request.method === 'POST') {
    return arangoOkReply({ isNewlyCreated: true, ...(request.body as object) }, 201);
  }
  return arangoErrorReply(501, 9, `unscripted ${request.method} ${path}`);
}

describe(ArangoThreadSchema.name, () => {
  let server: FakeArangoServer;
  let state: FakeArangoCollections;
  let db: Database;

  beforeAll(async () => {
    server = await startFakeArango((request) => serve(state, request));
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

  const indexRequests = () =>
    server.requests
      .filter((request) => request.method === 'POST' && request.path.endsWith('/_api/index'))
      .map((request) => [request.query.collection, request.body]);
  const creations = () =>
    server.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/_api/collection'));

  it('creates the four document collections, the owner index and the TTL cleanup indexes on an empty database', async () => {
    state = { types: new Map() };
    await new ArangoThreadSchema(db).ensure();
    expect(Object.fromEntries(state.types)).toEqual({
      [ARANGO_THREAD_NAMES.threads]: 2,
      [ARANGO_THREAD_NAMES.leases]: 2,
      [ARANGO_THREAD_NAMES.workspaceUsage]: 2,
      [ARANGO_THREAD_NAMES.idempotencyKeys]: 2,
    });
    expect(indexRequests()).toEqual([
      [
        ARANGO_THREAD_NAMES.threads,
        { type: 'persistent', fields: ['workspace', 'userId', 'graphKey', 'lastUpdatedTime'], inBackground: true },
      ],
      [
        ARANGO_THREAD_NAMES.threads,
        { type: 'persistent', fields: ['workspace', 'pendingInterrupt.createdTime'], sparse: true, inBackground: true },
      ],
      [ARANGO_THREAD_NAMES.leases, { type: 'ttl', fields: [TTL_FIELD], expireAfter: 0, inBackground: true }],
      [ARANGO_THREAD_NAMES.idempotencyKeys, { type: 'ttl', fields: [TTL_FIELD], expireAfter: 0, inBackground: true }],
    ]);
  });

  it('uses the nodius_ai_threads Nodius already has, creating only what is missing', async () => {
    state = { types: new Map([[ARANGO_THREAD_NAMES.threads, 2]]) };
    await new ArangoThreadSchema(db).ensure();
    expect(creations().map((request) => (request.body as { name: string }).name)).toEqual([
      ARANGO_THREAD_NAMES.leases,
      ARANGO_THREAD_NAMES.workspaceUsage,
      ARANGO_THREAD_NAMES.idempotencyKeys,
    ]);
  });

  it('accepts losing a creation race to another instance starting at the same time', async () => {
    state = { types: new Map(), loseCreationRace: true };
    await expect(new ArangoThreadSchema(db).ensure()).resolves.toBeUndefined();
  });

  it('refuses to run on a thread collection that is an edge collection', async () => {
    state = { types: new Map([[ARANGO_THREAD_NAMES.leases, 3]]) };
    await expect(new ArangoThreadSchema(db).ensure()).rejects.toThrow(
      `Collection ${ARANGO_THREAD_NAMES.leases} exists but is not a document collection`,
    );
  });
});
