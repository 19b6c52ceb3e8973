import { Database } from 'arangojs';
import { appErrorOf } from '../../../test/support/app-error-of';
import {
  apiPathOf,
  arangoCursorReply,
  closedPortUrl,
  FakeArangoCollections,
  fakeCollectionReply,
  FakeArangoServer,
  startFakeArango,
} from '../../../test/support/fake-arango.server';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { ARANGO_ACTION_POLICIES, ArangoActionPolicyRepository } from './arango-action-policy.repository';

/**
 * The adapter's set-up, mapping and failure translation through the real arangojs driver, against a
 * local server that scripts ArangoDB's REST answers. What the AQL does on a server is covered by the
 * ActionPolicyRepository contract on a real ArangoDB (ARANGO_URL).
 */
describe(ArangoActionPolicyRepository.name, () => {
  let server: FakeArangoServer;
  let db: Database;
  let collections: FakeArangoCollections;
  let cursorResult: unknown[];

  beforeEach(async () => {
    setLogSink(() => undefined);
    collections = { types: new Map() };
    cursorResult = [];
    server = await startFakeArango((request) => {
      const collection = fakeCollectionReply(collections, request);
      if (collection) return collection;
      if (apiPathOf(request) === '/_api/cursor') return arangoCursorReply(cursorResult);
      return { status: 404, body: { error: true, code: 404, errorNum: 404, errorMessage: 'unexpected request' } };
    });
    db = new Database({ url: server.url, databaseName: 'nodius' });
  });

  afterEach(async () => {
    db.close();
    await server.close();
    resetLogSink();
  });

  const creations = () =>
    server.requests.filter((request) => request.method === 'POST' && apiPathOf(request) === '/_api/collection');

  it('creates its document collection when missing, and leaves an existing one (or one another instance just created) alone', async () => {
    await ArangoActionPolicyRepository.open(db);
    expect(creations().map((request) => request.body)).toEqual([
      expect.objectContaining({ name: ARANGO_ACTION_POLICIES, type: 2 }),
    ]);
    await ArangoActionPolicyRepository.open(db);
    expect(creations()).toHaveLength(1);

    collections.types.clear();
    collections.loseCreationRace = true;
    await expect(ArangoActionPolicyRepository.open(db)).resolves.toBeInstanceOf(ArangoActionPolicyRepository);
  });

  it('reads a stored document, keeping only the kinds, roles and levels it knows', async () => {
    const repository = await ArangoActionPolicyRepository.open(db);
    cursorResult = [
      {
        default: { create_node: 'autonomous', teleport_node: 'autonomous', delete_node: 'sometimes' },
        roles: { viewer: {}, admin: { batch: 'forbidden' } },
        updatedTime: 7,
      },
    ];
    await expect(repository.get('ws')).resolves.toEqual({
      default: { create_node: 'autonomous' },
      roles: { admin: { batch: 'forbidden' } },
      updatedTime: 7,
    });
    cursorResult = [];
    await expect(repository.get('ws')).resolves.toBeNull();
  });

  it('binds the workspace and a key hashed from it in every query', async () => {
    const repository = await ArangoActionPolicyRepository.open(db);
    cursorResult = [{ default: {}, roles: {}, updatedTime: 3 }];
    await repository.put('ws "quoted"', { default: {}, roles: {} }, 3);
    await repository.get('ws "quoted"');
    const cursors = server.requests.filter((request) => apiPathOf(request) === '/_api/cursor');
    expect(cursors).toHaveLength(2);
    for (const request of cursors) {
      const bindVars = (request.body as { bindVars: Record<string, unknown> }).bindVars;
      expect(Object.values(bindVars)).toEqual(
        expect.arrayContaining(['ws "quoted"', expect.stringMatching(/^policy_[0-9a-f]{64}$/)]),
      );
    }
  });

  it('answers store_unavailable (503) when the server cannot be reached', async () => {
    const repository = new ArangoActionPolicyRepository(
      new Database({ url: await closedPortUrl(), databaseName: 'nodius' }),
    );
    await expect(appErrorOf(repository.get('ws'))).resolves.toMatchObject({
      code: 'store_unavailable',
      statusCode: 503,
    });
  });
});
