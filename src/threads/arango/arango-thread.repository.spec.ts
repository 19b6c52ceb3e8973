import { Database } from 'arangojs';
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
import { appErrorOf } from '../../../test/support/app-error-of';
import { userMessage } from '../../../test/support/thread-messages';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { ThreadRevisionConflictError } from '../thread-revision-conflict.error';
import { EMPTY_USAGE } from '../thread.types';
import { ArangoThreadDocumentMapper } from './arango-thread-document.mapper';
import { ARANGO_THREAD_NAMES } from './arango-thread.names';
import { ArangoThreadQueries } from './arango-thread.queries';
import { APPLIED_OPERATIONS_KEPT, ArangoThreadRepository, CLEANUP_GRACE_SECONDS } from './arango-thread.repository';

/**
 * The repository's orchestration (compare-and-set outcomes, runs again after a lost race, mapping,
 * failure translation) through the real arangojs driver over a real socket, against a local server
 * that scripts ArangoDB's REST answers per query. What the AQL itself does on a server is covered by
 * the ThreadRepository contract on a real ArangoDB (ARANGO_URL).
 */

type QueryKind = keyof ReturnType<typeof sampleQueries>;

interface CursorBody {
  query: string;
  bindVars: Record<string, unknown>;
}

/** One query of each kind; the query text does not depend on the values, so it names the kind. */
function sampleQueries() {
  const db = new Database({ url: 'http://127.0.0.1:1', databaseName: 'unused' });
  const queries = new ArangoThreadQueries({
    threads: db.collection(ARANGO_THREAD_NAMES.threads),
    leases: db.collection(ARANGO_THREAD_NAMES.leases),
    workspaceUsage: db.collection(ARANGO_THREAD_NAMES.workspaceUsage),
    idempotencyKeys: db.collection(ARANGO_THREAD_NAMES.idempotencyKeys),
  });
  const lease = { threadId: 't', holder: 'h', now: 1, expiresAt: 2, retentionSeconds: 3 };
  const usage = { workspaceKey: 'k', workspace: 'w', usage: EMPTY_USAGE, now: 1 };
  const commit = {
    threadId: 't',
    operationId: 'o',
    expectedRevision: 0,
    discardFrom: null,
    append: [],
    patch: {},
    now: 1,
    operationsKept: 1,
  };
  const entry = {
    _key: 'k',
    workspace: 'w',
    userId: 'u',
    key: 'x',
    state: 'in_progress' as const,
    response: null,
    reservation: 'r',
    createdTime: 1,
    expiresAt: 2,
  };
  return {
    insertThread: queries.insertThread(
      ArangoThreadDocumentMapper.toNewDocument({
        threadId: 't',
        workspace: 'w',
        userId: 'u',
        graphKey: 'g',
        title: 't',
        createdTime: 1,
      }),
    ),
    thread: queries.thread('t'),
    head: queries.head('t'),
    summaries: queries.summaries('w', 'u', 'g'),
    removeThread: queries.removeThread('t'),
    commit: queries.commit(commit),
    commitLastRound: queries.commitLastRound(commit, { holder: 'h', usage: { ...usage, threadId: 't' } }),
    commitLastRoundWithoutUsage: queries.commitLastRound(commit, { holder: 'h', usage: null }),
    commitState: queries.commitState('t', 'o'),
    acquireLease: queries.acquireLease(lease),
    renewLease: queries.renewLease(lease),
    releaseLease: queries.releaseLease('t', 'h'),
    addUsageToThread: queries.addUsage({ ...usage, threadId: 't' }),
    addUsageToWorkspace: queries.addUsage({ ...usage, threadId: null }),
    workspaceUsage: queries.workspaceUsage('k'),
    reserveIdempotencyKey: queries.reserveIdempotencyKey(entry, 1, 2),
    idempotencyState: queries.idempotencyState('k', 1),
    renewIdempotencyKey: queries.renewIdempotencyKey('k', 'r', 1, 2, 3),
    completeIdempotencyKey: queries.completeIdempotencyKey('k', 'r', null, 1, 2),
    releaseIdempotencyKey: queries.releaseIdempotencyKey('k', 'r'),
  };
}

/** The query text with bind variable names blanked: arangojs numbers them, and reuses one for equal values. */
const shape = (text: string): string => text.replace(/@@?value\d+/g, '@_');
const KIND_BY_SHAPE = new Map(
  Object.entries(sampleQueries()).map(([kind, query]) => [shape(query.query), kind as QueryKind]),
);
const kindOf = (request: FakeArangoRequest): QueryKind | undefined =>
  KIND_BY_SHAPE.get(shape((request.body as CursorBody).query));

const WRITE_CONFLICT = arangoErrorReply(409, 1200, 'write-write conflict');
const UNIQUE_VIOLATION = arangoErrorReply(409, 1210, 'unique constraint violated');
const FAST_RETRY = { attempts: 3, baseDelayMs: 0 };

describe(ArangoThreadRepository.name, () => {
  beforeEach(() => setLogSink(() => undefined));
  afterEach(() => resetLogSink());

  describe('when the server is unreachable', () => {
    let db: Database;
    let repository: ArangoThreadRepository;

    beforeAll(async () => {
      db = new Database({ url: await closedPortUrl(), databaseName: 'nodius' });
      repository = new ArangoThreadRepository(db, { retry: FAST_RETRY });
    });
    afterAll(() => db.close());

    it('fails every call with store_unavailable (503, retryable), never a crash', async () => {
      const scope = { workspace: 'w', userId: 'u', key: 'k' };
      const calls: Array<Promise<unknown>> = [
        repository.create({ threadId: 'ai_1', workspace: 'w', userId: 'u', graphKey: 'g', title: 't', createdTime: 1 }),
        repository.get('ai_1'),
        repository.getHead('ai_1'),
        repository.list('w', 'u', 'g'),
        repository.delete('ai_1'),
        repository.commit('ai_1', { operationId: 'op', expectedRevision: 0, append: [] }),
        repository.acquireLease('ai_1', 'h', 1000, 1),
        repository.renewLease('ai_1', 'h', 1000, 1),
        repository.releaseLease('ai_1', 'h'),
        repository.addUsage('w', 'ai_1', EMPTY_USAGE, 1),
        repository.getWorkspaceUsage('w'),
        repository.reserveIdempotencyKey(scope, 1000, 1),
        repository.renewIdempotencyKey(scope, 'token', 1000, 1),
        repository.completeIdempotencyKey(scope, 'token', {}, 1000),
        repository.releaseIdempotencyKey(scope, 'token'),
      ];
      for (const call of calls)
        expect(await appErrorOf(call)).toMatchObject({ code: 'store_unavailable', statusCode: 503, retryable: true });
    });
  });

  describe('against a scripted server', () => {
    /** One call's usage, as a run records it. */
    const usage = { promptTokens: 1, completionTokens: 2, cachedTokens: 0, totalTokens: 3, costUsd: 0.5, llmCalls: 1 };
    let server: FakeArangoServer;
    let script: (kind: QueryKind | undefined, bindVars: Record<string, unknown>) => FakeArangoReply | undefined;
    let db: Database;
    let repository: ArangoThreadRepository;

    beforeAll(async () => {
      server = await startFakeArango((request) => {
        if (request.path.endsWith('/_api/transaction/begin'))
          return arangoOkReply({ result: { id: 'trx-1', status: 'running' } });
        if (request.path.endsWith('/_api/transaction/trx-1'))
          return arangoOkReply({
            result: { id: 'trx-1', status: request.method === 'PUT' ? 'committed' : 'aborted' },
          });
        if (!request.path.endsWith('/_api/cursor'))
          return arangoErrorReply(501, 9, `unscripted ${request.method} ${request.path}`);
        return script(kindOf(request), (request.body as CursorBody).bindVars) ?? arangoCursorReply([]);
      });
    });
    afterAll(() => server.close());

    beforeEach(() => {
      server.requests.length = 0;
      script = () => undefined;
      db = new Database({ url: server.url, databaseName: 'nodius' });
      repository = new ArangoThreadRepository(db, { retry: FAST_RETRY, clock: () => 1_700_000_000_123 });
    });
    afterEach(() => db.close());

    const cursors = (): FakeArangoRequest[] =>
      server.requests.filter((request) => request.path.endsWith('/_api/cursor'));
    const sent = (): Array<QueryKind | undefined> => cursors().map(kindOf);
    const bindVarsOf = (index: number): Record<string, unknown> => (cursors()[index].body as CursorBody).bindVars;

    /** Answers each kind from a queue of replies (the last one repeats). */
    function scriptQueues(queues: Partial<Record<QueryKind, FakeArangoReply[]>>): void {
      script = (kind) => {
        const queue = kind ? queues[kind] : undefined;
        if (!queue || queue.length === 0) return undefined;
        return queue.length > 1 ? queue.shift() : queue[0];
      };
    }

    describe('threads', () => {
      it('creates a thread as one insert of the seed-shaped document and answers the record', async () => {
        const thread = {
          threadId: 'ai_1',
          workspace: 'w',
          userId: 'u',
          graphKey: 'g',
          title: 'Hello',
          createdTime: 42,
        };
        const record = await repository.create(thread);
        expect(record).toEqual({
          ...thread,
          type: 'chat',
          messages: [],
          pendingInterrupt: null,
          revision: 0,
          usage: EMPTY_USAGE,
          lastUpdatedTime: 42,
        });
        expect(sent()).toEqual(['insertThread']);
        expect(Object.values(bindVarsOf(0))).toContainEqual(ArangoThreadDocumentMapper.toNewDocument(thread));
      });

      it('creates a thread for a run in one stream transaction: the document with its first round, then its lease; and answers it at revision 1', async () => {
        scriptQueues({ acquireLease: [arangoCursorReply([true])] });
        const thread = {
          threadId: 'ai_1',
          workspace: 'w',
          userId: 'u',
          graphKey: 'g',
          title: 'Hello',
          createdTime: 42,
        };
        const append = [{ ...userMessage('Q'), threadId: 'ai_1' }];
        const record = await repository.create(thread, {
          lease: { holder: 'run-a', ttlMs: 60_000, now: 50 },
          firstRound: { operationId: 'op', expectedRevision: 0, append, title: 'Q' },
        });
        expect(record).toEqual({
          ...thread,
          title: 'Q',
          type: 'chat',
          messages: append,
          pendingInterrupt: null,
          revision: 1,
          usage: EMPTY_USAGE,
          lastUpdatedTime: 1_700_000_000_123,
        });
        const begin = server.requests[0];
        expect(begin.path).toBe('/_db/nodius/_api/transaction/begin');
        expect(begin.body).toMatchObject({
          collections: { write: [ARANGO_THREAD_NAMES.threads, ARANGO_THREAD_NAMES.leases] },
        });
        expect(sent()).toEqual(['insertThread', 'acquireLease']);
        expect(cursors().every((request) => request.transactionId === 'trx-1')).toBe(true);
        expect(Object.values(bindVarsOf(0))).toContainEqual({
          ...ArangoThreadDocumentMapper.toNewDocument(thread),
          title: 'Q',
          conversationHistory: append,
          revision: 1,
          appliedOperationIds: ['op'],
          messageCount: 1,
          lastUpdatedTime: 1_700_000_000_123,
        });
        expect(Object.values(bindVarsOf(1))).toEqual(expect.arrayContaining(['ai_1', 'run-a', 60_050]));
        expect(server.requests.at(-1)).toMatchObject({ method: 'PUT', path: '/_db/nodius/_api/transaction/trx-1' });
      });

      it('leaves nothing when the lease of a new thread is refused: the transaction is aborted (no empty titled thread)', async () => {
        scriptQueues({ acquireLease: [arangoCursorReply([false])] });
        const error = await appErrorOf(
          repository.create(
            { threadId: 'ai_2', workspace: 'w', userId: 'u', graphKey: 'g', title: 'Hello', createdTime: 42 },
            {
              lease: { holder: 'run-a', ttlMs: 60_000, now: 50 },
              firstRound: {
                operationId: 'op',
                expectedRevision: 0,
                append: [{ ...userMessage('Q'), threadId: 'ai_2' }],
              },
            },
          ),
        );
        expect(error.code).toBe('thread_busy');
        expect(server.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/_db/nodius/_api/transaction/trx-1' });
      });

      it('refuses a thread id that is already used with a conflict', async () => {
        scriptQueues({ insertThread: [UNIQUE_VIOLATION] });
        const error = await appErrorOf(
          repository.create({
            threadId: 'ai_1',
            workspace: 'w',
            userId: 'u',
            graphKey: 'g',
            title: 't',
            createdTime: 1,
          }),
        );
        expect(error).toMatchObject({ code: 'conflict', message: 'A thread with this id already exists' });
      });

      it('reads a thread document into a record, and null when there is none', async () => {
        const document = {
          ...ArangoThreadDocumentMapper.toNewDocument({
            threadId: 'ai_1',
            workspace: 'w',
            userId: 'u',
            graphKey: 'g',
            title: 'T',
            createdTime: 1,
          }),
          conversationHistory: [userMessage('Q')],
          revision: 1,
        };
        scriptQueues({ thread: [arangoCursorReply([document]), arangoCursorReply([])] });
        expect(await repository.get('ai_1')).toMatchObject({
          threadId: 'ai_1',
          revision: 1,
          messages: document.conversationHistory,
        });
        expect(await repository.get('ai_2')).toBeNull();
      });

      it('answers whether delete removed a thread', async () => {
        scriptQueues({
          removeThread: [
            arangoCursorReply([{ removed: true, released: true }]),
            arangoCursorReply([{ removed: false, released: false }]),
          ],
        });
        expect(await repository.delete('ai_1')).toBe(true);
        expect(await repository.delete('ai_1')).toBe(false);
      });
    });

    describe('commits', () => {
      const commit = { operationId: 'op-1', expectedRevision: 2, append: [userMessage('Q')], pendingInterrupt: null };

      it('applies in one compare-and-set query, stamped with the clock', async () => {
        scriptQueues({ commit: [arangoCursorReply([{ revision: 3, lastUpdatedTime: 1_700_000_000_123 }])] });
        expect(await repository.commit('ai_1', commit)).toEqual({
          applied: true,
          revision: 3,
          lastUpdatedTime: 1_700_000_000_123,
        });
        expect(sent()).toEqual(['commit']);
        const values = Object.values(bindVarsOf(0));
        expect(values).toEqual(
          expect.arrayContaining(['ai_1', 'op-1', 2, 3, 1_700_000_000_123, -APPLIED_OPERATIONS_KEPT, commit.append]),
        );
        expect(values).toContainEqual({ pendingInterrupt: null });
      });

      it('answers applied: false for a replayed operation, with the stored revision, and writes nothing more', async () => {
        scriptQueues({
          commit: [arangoCursorReply([])],
          commitState: [arangoCursorReply([{ revision: 5, lastUpdatedTime: 77, replayed: true }])],
        });
        expect(await repository.commit('ai_1', commit)).toEqual({ applied: false, revision: 5, lastUpdatedTime: 77 });
        expect(sent()).toEqual(['commit', 'commitState']);
      });

      it('throws ThreadRevisionConflictError with the stored revision when it moved on', async () => {
        scriptQueues({
          commit: [arangoCursorReply([])],
          commitState: [arangoCursorReply([{ revision: 4, lastUpdatedTime: 77, replayed: false }])],
        });
        const error = await repository.commit('ai_1', commit).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ThreadRevisionConflictError);
        expect(error).toMatchObject({ threadId: 'ai_1', expectedRevision: 2, actualRevision: 4 });
      });

      it('answers not_found for a thread that does not exist', async () => {
        scriptQueues({ commit: [arangoCursorReply([])], commitState: [arangoCursorReply([])] });
        expect(await appErrorOf(repository.commit('ai_1', commit))).toMatchObject({ code: 'not_found' });
      });

      it('runs again when a write that kept the revision (usage) won the race, then applies', async () => {
        scriptQueues({
          commit: [WRITE_CONFLICT, arangoCursorReply([{ revision: 3, lastUpdatedTime: 9 }])],
          commitState: [arangoCursorReply([{ revision: 2, lastUpdatedTime: 8, replayed: false }])],
        });
        expect(await repository.commit('ai_1', commit)).toEqual({ applied: true, revision: 3, lastUpdatedTime: 9 });
        expect(sent()).toEqual(['commit', 'commitState', 'commit']);
      });

      it('refuses as a revision conflict when another commit won the race', async () => {
        scriptQueues({
          commit: [WRITE_CONFLICT],
          commitState: [arangoCursorReply([{ revision: 3, lastUpdatedTime: 8, replayed: false }])],
        });
        await expect(repository.commit('ai_1', commit)).rejects.toMatchObject({
          name: 'ThreadRevisionConflictError',
          actualRevision: 3,
        });
      });

      it('answers applied: false when the same operation, retried concurrently, won the race', async () => {
        scriptQueues({
          commit: [WRITE_CONFLICT],
          commitState: [arangoCursorReply([{ revision: 3, lastUpdatedTime: 8, replayed: true }])],
        });
        expect(await repository.commit('ai_1', commit)).toEqual({ applied: false, revision: 3, lastUpdatedTime: 8 });
      });

      describe('with the end of the run (its last round)', () => {
        const end = { holder: 'run-a', usage: { workspace: 'w', usage, now: 5 } };

        it('writes the round, the usage and the release in one query', async () => {
          scriptQueues({ commitLastRound: [arangoCursorReply([{ revision: 3, lastUpdatedTime: 9, released: true }])] });
          expect(await repository.commit('ai_1', commit, end)).toEqual({
            applied: true,
            revision: 3,
            lastUpdatedTime: 9,
          });
          expect(sent()).toEqual(['commitLastRound']);
          expect(Object.values(bindVarsOf(0))).toEqual(expect.arrayContaining(['ai_1', 'op-1', 'run-a', usage, 'w']));
        });

        it('ends a run without usage with the round and the release only', async () => {
          scriptQueues({ commitLastRoundWithoutUsage: [arangoCursorReply([{ revision: 3, lastUpdatedTime: 9 }])] });
          await repository.commit('ai_1', commit, { holder: 'run-a' });
          expect(sent()).toEqual(['commitLastRoundWithoutUsage']);
        });

        it('releases the lease, without the usage, when the round was applied already', async () => {
          scriptQueues({
            commitLastRound: [arangoCursorReply([])],
            commitState: [arangoCursorReply([{ revision: 3, lastUpdatedTime: 8, replayed: true }])],
          });
          expect(await repository.commit('ai_1', commit, end)).toEqual({
            applied: false,
            revision: 3,
            lastUpdatedTime: 8,
          });
          expect(sent()).toEqual(['commitLastRound', 'commitState', 'releaseLease']);
          expect(Object.values(bindVarsOf(2))).toEqual(expect.arrayContaining(['ai_1', 'run-a']));
        });

        it('releases nothing when the round is refused', async () => {
          scriptQueues({
            commitLastRound: [arangoCursorReply([])],
            commitState: [arangoCursorReply([{ revision: 4, lastUpdatedTime: 8, replayed: false }])],
          });
          await expect(repository.commit('ai_1', commit, end)).rejects.toBeInstanceOf(ThreadRevisionConflictError);
          expect(sent()).toEqual(['commitLastRound', 'commitState']);
        });
      });

      it('gives up with a retryable conflict when the document keeps changing under it', async () => {
        scriptQueues({
          commit: [WRITE_CONFLICT],
          commitState: [arangoCursorReply([{ revision: 2, lastUpdatedTime: 8, replayed: false }])],
        });
        expect(await appErrorOf(repository.commit('ai_1', commit))).toMatchObject({
          code: 'conflict',
          retryable: true,
        });
        expect(sent().filter((kind) => kind === 'commit')).toHaveLength(FAST_RETRY.attempts);
      });
    });

    describe('leases', () => {
      it('answers whether the holder got it, with expiry and cleanup time derived from the ttl', async () => {
        scriptQueues({ acquireLease: [arangoCursorReply([true]), arangoCursorReply([])] });
        expect(await repository.acquireLease('ai_1', 'run-a', 60_000, 1_000)).toBe(true);
        expect(Object.values(bindVarsOf(0))).toEqual(
          expect.arrayContaining(['ai_1', 'run-a', 1_000, 61_000, 60 + CLEANUP_GRACE_SECONDS]),
        );
        expect(await repository.acquireLease('ai_1', 'run-b', 60_000, 1_000)).toBe(false);
      });

      it('runs again after losing an insert race, and then sees the winner', async () => {
        scriptQueues({ acquireLease: [UNIQUE_VIOLATION, arangoCursorReply([])] });
        expect(await repository.acquireLease('ai_1', 'run-b', 60_000, 1_000)).toBe(false);
        expect(sent()).toEqual(['acquireLease', 'acquireLease']);
      });

      it('answers false when every attempt is contended', async () => {
        scriptQueues({ acquireLease: [WRITE_CONFLICT] });
        expect(await repository.acquireLease('ai_1', 'run-b', 60_000, 1_000)).toBe(false);
        expect(sent()).toHaveLength(FAST_RETRY.attempts);
      });

      it('renews for the holder only and releases quietly when the lease is already gone', async () => {
        scriptQueues({
          renewLease: [arangoCursorReply([true]), arangoCursorReply([])],
          releaseLease: [arangoErrorReply(404, 1202, 'document not found')],
        });
        expect(await repository.renewLease('ai_1', 'run-a', 1_000, 5)).toBe(true);
        expect(await repository.renewLease('ai_1', 'run-b', 1_000, 5)).toBe(false);
        await expect(repository.releaseLease('ai_1', 'run-a')).resolves.toBeUndefined();
      });
    });

    describe('usage', () => {
      it('adds to the thread and the workspace in one query, to the workspace alone without a thread', async () => {
        await repository.addUsage('w', 'ai_1', usage, 5);
        await repository.addUsage('w', null, usage, 6);
        expect(sent()).toEqual(['addUsageToThread', 'addUsageToWorkspace']);
        expect(Object.values(bindVarsOf(0))).toEqual(expect.arrayContaining([usage, 'ai_1', 'w']));
      });

      it('records a run’s usage, then releases its lease, when both are asked at once', async () => {
        await repository.releaseLease('ai_1', 'run-a', { workspace: 'w', usage, now: 5 });
        expect(sent()).toEqual(['addUsageToThread', 'releaseLease']);
        expect(Object.values(bindVarsOf(0))).toEqual(expect.arrayContaining([usage, 'ai_1', 'w']));
        expect(Object.values(bindVarsOf(1))).toEqual(expect.arrayContaining(['ai_1', 'run-a']));
      });

      it('runs again after a write conflict, so no usage is lost, and gives up with a retryable conflict', async () => {
        scriptQueues({ addUsageToThread: [WRITE_CONFLICT, arangoCursorReply([{}])] });
        await repository.addUsage('w', 'ai_1', usage, 5);
        expect(sent()).toEqual(['addUsageToThread', 'addUsageToThread']);

        server.requests.length = 0;
        scriptQueues({ addUsageToThread: [WRITE_CONFLICT] });
        expect(await appErrorOf(repository.addUsage('w', 'ai_1', usage, 5))).toMatchObject({
          code: 'conflict',
          retryable: true,
        });
        expect(sent()).toHaveLength(FAST_RETRY.attempts);
      });

      it('reads the workspace totals under one hashed key per workspace, zero when none', async () => {
        scriptQueues({ workspaceUsage: [arangoCursorReply([usage]), arangoCursorReply([])] });
        expect(await repository.getWorkspaceUsage('a/b c')).toEqual(usage);
        expect(await repository.getWorkspaceUsage('a/b c')).toEqual(EMPTY_USAGE);
        const [first, second] = [bindVarsOf(0), bindVarsOf(1)].map((vars) =>
          Object.values(vars).find((value) => String(value).startsWith('ws_')),
        );
        expect(first).toMatch(/^ws_[0-9a-f]{64}$/);
        expect(second).toBe(first);
      });
    });

    describe('idempotency keys', () => {
      const scope = { workspace: 'w', userId: 'u', key: 'key with / and "quotes"' };

      it('reserves with a record that names the principal and the key, under a hashed document key', async () => {
        scriptQueues({ reserveIdempotencyKey: [arangoCursorReply([true])] });
        const claim = await repository.reserveIdempotencyKey(scope, 86_400_000, 1_000);
        const entry = Object.values(bindVarsOf(0)).find(
          (value) => typeof value === 'object' && value !== null && 'reservation' in value,
        );
        expect(entry).toMatchObject({
          workspace: 'w',
          userId: 'u',
          key: scope.key,
          state: 'in_progress',
          response: null,
          createdTime: 1_000,
          expiresAt: 86_401_000,
        });
        expect((entry as unknown as { _key: string })._key).toMatch(/^idem_[0-9a-f]{64}$/);
        // The token handed back is the one written on the record.
        expect(claim).toEqual({ state: 'reserved', token: (entry as unknown as { reservation: string }).reservation });
      });

      it('answers the live record when the key is taken: in progress, or completed with the first answer', async () => {
        scriptQueues({
          reserveIdempotencyKey: [arangoCursorReply([])],
          idempotencyState: [
            arangoCursorReply([{ state: 'in_progress', response: null }]),
            arangoCursorReply([{ state: 'completed', response: { message: 'Hi' } }]),
          ],
        });
        expect(await repository.reserveIdempotencyKey(scope, 1_000, 1)).toEqual({ state: 'in_progress' });
        expect(await repository.reserveIdempotencyKey(scope, 1_000, 1)).toEqual({
          state: 'completed',
          response: { message: 'Hi' },
        });
      });

      it('tries again when the record that held the key went away in between', async () => {
        scriptQueues({
          reserveIdempotencyKey: [arangoCursorReply([false]), arangoCursorReply([true])],
          idempotencyState: [arangoCursorReply([])],
        });
        expect(await repository.reserveIdempotencyKey(scope, 1_000, 1)).toEqual({
          state: 'reserved',
          token: expect.any(String),
        });
        expect(sent()).toEqual(['reserveIdempotencyKey', 'idempotencyState', 'reserveIdempotencyKey']);
      });

      it("completes with the answer (null for none) on the token's reservation, kept from its creation for the given time, and releases quietly", async () => {
        scriptQueues({
          completeIdempotencyKey: [arangoCursorReply([true]), arangoCursorReply([])],
          releaseIdempotencyKey: [arangoErrorReply(404, 1202, 'document not found'), arangoCursorReply([true])],
        });
        expect(await repository.completeIdempotencyKey(scope, 'token-1', undefined, 86_400_000)).toBe(true);
        expect(Object.values(bindVarsOf(0))).toEqual(
          expect.arrayContaining(['token-1', null, 86_400_000, 86_400 + CLEANUP_GRACE_SECONDS]),
        );
        // Another reservation holds the key now: nothing is stored.
        expect(await repository.completeIdempotencyKey(scope, 'lapsed-token', 'late', 86_400_000)).toBe(false);
        expect(await repository.releaseIdempotencyKey(scope, 'token-1')).toBe(false);
        expect(await repository.releaseIdempotencyKey(scope, 'token-1')).toBe(true);
        expect(Object.values(bindVarsOf(3))).toContain('token-1');
        expect(sent()).toEqual([
          'completeIdempotencyKey',
          'completeIdempotencyKey',
          'releaseIdempotencyKey',
          'releaseIdempotencyKey',
        ]);
      });

      it('reserves for the short hold, and renews only while the reservation is live', async () => {
        scriptQueues({
          reserveIdempotencyKey: [arangoCursorReply([true])],
          renewIdempotencyKey: [
            arangoCursorReply([true]),
            arangoCursorReply([]),
            WRITE_CONFLICT,
            arangoCursorReply([true]),
          ],
        });
        const claim = await repository.reserveIdempotencyKey(scope, 120_000, 1_000);
        const token = (claim as { token: string }).token;
        const entry = Object.values(bindVarsOf(0)).find(
          (value) => typeof value === 'object' && value !== null && 'reservation' in value,
        );
        expect(entry).toMatchObject({ createdTime: 1_000, expiresAt: 121_000 });
        expect(Object.values(bindVarsOf(0))).toContain(120 + CLEANUP_GRACE_SECONDS);

        expect(await repository.renewIdempotencyKey(scope, token, 120_000, 41_000)).toBe(true);
        expect(Object.values(bindVarsOf(1))).toEqual(
          expect.arrayContaining([token, 41_000, 161_000, 120 + CLEANUP_GRACE_SECONDS]),
        );
        expect(await repository.renewIdempotencyKey(scope, token, 120_000, 200_000)).toBe(false);
        // A write conflict (a concurrent complete or renew) runs it again.
        expect(await repository.renewIdempotencyKey(scope, token, 120_000, 81_000)).toBe(true);
        expect(sent()).toEqual([
          'reserveIdempotencyKey',
          'renewIdempotencyKey',
          'renewIdempotencyKey',
          'renewIdempotencyKey',
          'renewIdempotencyKey',
        ]);
      });
    });

    it('translates an unavailable server (503) into store_unavailable', async () => {
      script = () => arangoErrorReply(503, 503, 'service unavailable');
      expect(await appErrorOf(repository.get('ai_1'))).toMatchObject({ code: 'store_unavailable' });
      expect(
        await appErrorOf(repository.commit('ai_1', { operationId: 'o', expectedRevision: 0, append: [] })),
      ).toMatchObject({ code: 'store_unavailable' });
    });
  });

  it('sets its collections and indexes up when opened', async () => {
    const server = await startFakeArango((request: FakeArangoRequest) => {
      if (request.path.includes('/_api/collection/'))
        return { status: 200, body: { error: false, code: 200, name: 'x', type: 2 } };
      return { status: 201, body: { error: false, code: 201, isNewlyCreated: false } };
    });
    const db = new Database({ url: server.url, databaseName: 'nodius' });
    try {
      await expect(ArangoThreadRepository.open(db)).resolves.toBeInstanceOf(ArangoThreadRepository);
      expect(server.requests.filter((request) => request.path.endsWith('/_api/index'))).toHaveLength(4);
    } finally {
      db.close();
      await server.close();
    }
  });
});
