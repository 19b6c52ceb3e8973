import { Database } from 'arangojs';
import { AqlQuery, isAqlQuery } from 'arangojs/aql';
import { containsDeep, limitsNestedLoops, referencedBindVars } from '../../../test/support/aql-bind-vars';
import { assistantMessage, systemPrompt, userMessage } from '../../../test/support/thread-messages';
import { EMPTY_USAGE, ThreadMessage } from '../thread.types';
import { ArangoThreadDocumentMapper } from './arango-thread-document.mapper';
import { ARANGO_THREAD_NAMES } from './arango-thread.names';
import { ArangoThreadCollections, ArangoThreadQueries, CommitParams, IdempotencyEntry } from './arango-thread.queries';

/** Values a caller controls (ids, keys, names, message text) crafted to break out of an AQL string. */
const HOSTILE = {
  threadId: 'ai_x" || true || "',
  workspace: 'ws" || true || "',
  userId: "alice' OR 1==1 //",
  graphKey: 'g"; REMOVE "a" IN nodius_ai_threads //',
  holder: 'run` RETURN 1 //',
  operationId: 'op") OR true OR ("',
  idempotencyKey: '"} , state: "completed" //',
  title: 'T" } IN nodius_ai_threads //',
  content: 'FOR t IN nodius_ai_threads REMOVE t IN nodius_ai_threads',
};

// Building queries needs only collection handles: no request is made, no server is needed.
const db = new Database({ url: 'http://127.0.0.1:1', databaseName: 'unused' });
const collections: ArangoThreadCollections = {
  threads: db.collection(ARANGO_THREAD_NAMES.threads),
  leases: db.collection(ARANGO_THREAD_NAMES.leases),
  workspaceUsage: db.collection(ARANGO_THREAD_NAMES.workspaceUsage),
  idempotencyKeys: db.collection(ARANGO_THREAD_NAMES.idempotencyKeys),
};
const queries = new ArangoThreadQueries(collections);

const message: ThreadMessage = { id: 'msg_1', role: 'user', content: HOSTILE.content, createdTime: 1 };

function commitParams(overrides: Partial<CommitParams> = {}): CommitParams {
  return {
    threadId: HOSTILE.threadId,
    operationId: HOSTILE.operationId,
    expectedRevision: 4,
    discardFrom: null,
    append: [message],
    patch: { title: HOSTILE.title, pendingInterrupt: null },
    now: 1_700_000_000_000,
    operationsKept: 100,
    ...overrides,
  };
}

const lease = {
  threadId: HOSTILE.threadId,
  holder: HOSTILE.holder,
  now: 1_000,
  expiresAt: 61_000,
  retentionSeconds: 3_660,
};
const entry: IdempotencyEntry = {
  _key: 'idem_abc',
  workspace: HOSTILE.workspace,
  userId: HOSTILE.userId,
  key: HOSTILE.idempotencyKey,
  state: 'in_progress',
  response: null,
  reservation: 'r-1',
  createdTime: 1,
  expiresAt: 2,
};

/** One of each query the repository sends, built from hostile values. */
function everyQuery(): Record<string, AqlQuery> {
  const { threadId, workspace, userId, graphKey } = HOSTILE;
  const usage = { workspaceKey: 'ws_abc', workspace, usage: { ...EMPTY_USAGE, promptTokens: 3 }, now: 5 };
  return {
    insertThread: queries.insertThread(
      ArangoThreadDocumentMapper.toNewDocument({
        threadId,
        workspace,
        userId,
        graphKey,
        title: HOSTILE.title,
        createdTime: 1,
      }),
    ),
    thread: queries.thread(threadId),
    head: queries.head(threadId),
    summaries: queries.summaries(workspace, userId, graphKey),
    pending: queries.pending(workspace, userId, true, 50),
    removeThread: queries.removeThread(threadId),
    commit: queries.commit(commitParams()),
    commitState: queries.commitState(threadId, HOSTILE.operationId),
    commitLastRound: queries.commitLastRound(commitParams(), { holder: HOSTILE.holder, usage: { ...usage, threadId } }),
    commitLastRoundWithoutUsage: queries.commitLastRound(commitParams(), { holder: HOSTILE.holder, usage: null }),
    acquireLease: queries.acquireLease(lease),
    renewLease: queries.renewLease(lease),
    releaseLease: queries.releaseLease(threadId, HOSTILE.holder),
    addUsageToThread: queries.addUsage({ ...usage, threadId }),
    addUsageToWorkspace: queries.addUsage({ ...usage, threadId: null }),
    workspaceUsage: queries.workspaceUsage('ws_abc'),
    reserveIdempotencyKey: queries.reserveIdempotencyKey(entry, 1, 90_000),
    idempotencyState: queries.idempotencyState(entry._key, 1),
    renewIdempotencyKey: queries.renewIdempotencyKey(entry._key, HOSTILE.holder, 1, 120_001, 3_720),
    completeIdempotencyKey: queries.completeIdempotencyKey(
      entry._key,
      HOSTILE.holder,
      { message: HOSTILE.content },
      86_400_000,
      90_000,
    ),
    releaseIdempotencyKey: queries.releaseIdempotencyKey(entry._key, HOSTILE.holder),
  };
}

const squash = (query: AqlQuery): string => query.query.replace(/\s+/g, ' ');
const bindVarOf = (query: AqlQuery, value: unknown): string => {
  const name = Object.keys(query.bindVars).find((key) => query.bindVars[key] === value);
  if (!name) throw new Error(`no bind variable holds ${JSON.stringify(value)}`);
  return `@${name}`;
};

describe(ArangoThreadQueries.name, () => {
  describe.each(Object.entries(everyQuery()))('%s', (_name, query) => {
    it('is an AqlQuery whose text refers only to bind variables it defines, and uses all of them', () => {
      expect(isAqlQuery(query)).toBe(true);
      expect(referencedBindVars(query.query)).toEqual(new Set(Object.keys(query.bindVars)));
    });

    it('holds no string literal at all: every value, even a fixed state name, is bound', () => {
      for (const value of Object.values(HOSTILE)) expect(query.query).not.toContain(value);
      expect(query.query).not.toMatch(/"[^"]*"|'[^']*'|`[^`]*`|´[^´]*´/);
    });

    it('never puts a LIMIT after nested loops, where it would cut the whole stream instead of each outer row', () => {
      expect(limitsNestedLoops(query.query)).toBe(false);
    });

    it('reaches collections through @@ bind variables only', () => {
      const collectionVars = Object.entries(query.bindVars).filter(([name]) => name.startsWith('@'));
      expect(collectionVars.length).toBeGreaterThan(0);
      for (const [, value] of collectionVars) expect(Object.values(ARANGO_THREAD_NAMES)).toContain(value);
      for (const name of Object.values(ARANGO_THREAD_NAMES)) expect(query.query).not.toContain(name);
    });
  });

  it('carries the hostile values as bind variables, untouched', () => {
    const all = everyQuery();
    expect(containsDeep(all.thread.bindVars, HOSTILE.threadId)).toBe(true);
    expect(containsDeep(all.summaries.bindVars, HOSTILE.graphKey)).toBe(true);
    expect(containsDeep(all.summaries.bindVars, HOSTILE.userId)).toBe(true);
    expect(containsDeep(all.commit.bindVars, HOSTILE.content)).toBe(true);
    expect(containsDeep(all.commit.bindVars, HOSTILE.title)).toBe(true);
    expect(containsDeep(all.commit.bindVars, HOSTILE.operationId)).toBe(true);
    expect(containsDeep(all.acquireLease.bindVars, HOSTILE.holder)).toBe(true);
    expect(containsDeep(all.reserveIdempotencyKey.bindVars, HOSTILE.idempotencyKey)).toBe(true);
    expect(containsDeep(all.completeIdempotencyKey.bindVars, HOSTILE.content)).toBe(true);
  });

  describe('commit', () => {
    it('applies only at the expected revision, for an operation not yet applied, as a _rev-checked update', () => {
      const query = queries.commit(commitParams());
      const text = squash(query);
      expect(text).toContain(`FILTER NOT_NULL(t.revision, 0) == ${bindVarOf(query, 4)}`);
      expect(text).toContain(
        `FILTER ${bindVarOf(query, HOSTILE.operationId)} NOT IN NOT_NULL(t.appliedOperationIds, [])`,
      );
      expect(text).toMatch(/UPDATE t WITH MERGE\(@\w+, \{/);
      expect(text).toContain('OPTIONS { ignoreRevs: false, mergeObjects: false, keepNull: true }');
      expect(text).toContain('RETURN { revision: NEW.revision, lastUpdatedTime: NEW.lastUpdatedTime }');
    });

    it('appends the messages in order after the stored ones, bumps the revision and keeps the last operation ids', () => {
      const append: ThreadMessage[] = [
        { id: 'm1', role: 'user', content: 'Q', createdTime: 1 },
        { id: 'm2', role: 'assistant', content: 'A', createdTime: 2 },
      ];
      const query = queries.commit(commitParams({ append, expectedRevision: 7, operationsKept: 100 }));
      const text = squash(query);
      expect(text).toContain('LET history = NOT_NULL(t.conversationHistory, [])');
      expect(text).toContain(`conversationHistory: APPEND(SLICE(history, 0, cut), ${bindVarOf(query, append)})`);
      expect(text).toContain(`revision: ${bindVarOf(query, 8)}`);
      expect(text).toMatch(
        /appliedOperationIds: SLICE\(APPEND\(NOT_NULL\(t\.appliedOperationIds, \[\]\), \[@\w+\]\), @\w+\)/,
      );
      expect(Object.values(query.bindVars)).toContain(-100);
      expect(query.bindVars[bindVarOf(query, append).slice(1)]).toEqual(append);
    });

    it('removes a rolled-back turn from the message with the given id on, or nothing when no message has it', () => {
      const query = queries.commit(commitParams({ discardFrom: HOSTILE.content }));
      const text = squash(query);
      const from = bindVarOf(query, HOSTILE.content);
      expect(text).toContain(`LET discarded = ${from} == null ? -1 : POSITION(history[*].id, ${from}, true)`);
      expect(text).toContain('LET cut = discarded < 0 ? LENGTH(history) : discarded');
      // The kept count: recounted over what the discard leaves, else the document's own.
      expect(text).toMatch(/messageCount: \(discarded >= 0 \? LENGTH\(FOR shown IN SLICE\(history, 0, cut\) FILTER/);
    });

    it('replaces only the attributes the commit sets (a cleared interrupt is null, an untouched one absent)', () => {
      const cleared = queries.commit(commitParams({ patch: { pendingInterrupt: null } }));
      expect(Object.values(cleared.bindVars)).toContainEqual({ pendingInterrupt: null });
      const untouched = queries.commit(commitParams({ patch: {} }));
      expect(Object.values(untouched.bindVars)).toContainEqual({});
    });
  });

  describe('commitLastRound', () => {
    const usage = {
      workspaceKey: 'ws_abc',
      workspace: 'w',
      threadId: 'ai_1',
      usage: { ...EMPTY_USAGE, promptTokens: 3 },
      now: 5,
    };

    it('writes the round as commit does, with the usage merged into the same update of the thread', () => {
      const query = queries.commitLastRound(commitParams(), { holder: HOSTILE.holder, usage });
      const text = squash(query);
      expect(text).toMatch(
        /^ ?LET committed = \( FOR t IN @@\w+ FILTER t\._key == @\w+ FILTER NOT_NULL\(t\.revision, 0\) == @\w+/,
      );
      expect(text).toMatch(/\}, \{ usage: \{ promptTokens: NOT_NULL\(t\.usage\.promptTokens, 0\) \+ @\w+,/);
      expect(text.match(/UPDATE t WITH/g)).toHaveLength(1);
    });

    it('adds the usage to the workspace and removes the holder’s lease only when the round applied', () => {
      const query = queries.commitLastRound(commitParams(), { holder: HOSTILE.holder, usage });
      const text = squash(query);
      expect(text).toMatch(/LET counted = \( FOR applied IN committed LET delta = @\w+ UPSERT \{ _key: @\w+ \}/);
      expect(text).toContain(
        `LET released = ( FOR l IN @@${Object.keys(query.bindVars)
          .find((name) => query.bindVars[name] === ARANGO_THREAD_NAMES.leases)
          ?.slice(
            1,
          )} FILTER LENGTH(committed) > 0 AND l._key == ${bindVarOf(query, HOSTILE.threadId)} AND l.holder == ${bindVarOf(query, HOSTILE.holder)} LIMIT 1 REMOVE l IN`,
      );
      expect(text).toContain(
        'FOR applied IN committed RETURN MERGE(applied, { released: LENGTH(released) > 0, counted: LENGTH(counted) > 0 })',
      );
    });

    it('touches no workspace totals for a run without usage', () => {
      const query = queries.commitLastRound(commitParams(), { holder: HOSTILE.holder, usage: null });
      expect(squash(query)).not.toContain('UPSERT');
      expect(squash(query)).not.toContain('usage');
      expect(Object.values(query.bindVars)).not.toContain(ARANGO_THREAD_NAMES.workspaceUsage);
    });
  });

  it('takes a lease only when free, expired or already the holder’s, and checks again on the version it writes', () => {
    const query = queries.acquireLease(lease);
    const text = squash(query);
    const holder = bindVarOf(query, HOSTILE.holder);
    const now = bindVarOf(query, 1_000);
    expect(text).toContain(`FILTER existing == null OR existing.holder == ${holder} OR existing.expiresAt <= ${now}`);
    expect(text).toContain(`UPDATE OLD.holder == ${holder} OR OLD.expiresAt <= ${now} ? lease : {}`);
    expect(text).toContain(`RETURN NEW.holder == ${holder}`);
    expect(text).toContain(`removeAt: DATE_NOW() / 1000 + ${bindVarOf(query, 3_660)}`);
  });

  it('renews and releases a lease for its holder only, _rev-checked', () => {
    for (const query of [queries.renewLease(lease), queries.releaseLease(lease.threadId, lease.holder)]) {
      expect(squash(query)).toContain(
        `FILTER l._key == ${bindVarOf(query, lease.threadId)} AND l.holder == ${bindVarOf(query, lease.holder)}`,
      );
      expect(squash(query)).toContain('OPTIONS { ignoreRevs: false }');
    }
  });

  it('adds usage to the thread without touching its revision, and to the workspace, in one query', () => {
    const usage = { workspaceKey: 'ws_abc', workspace: 'w', usage: { ...EMPTY_USAGE, promptTokens: 3 }, now: 5 };
    const both = squash(queries.addUsage({ ...usage, threadId: 'ai_1' }));
    expect(both).toMatch(
      /UPDATE t WITH \{ usage: \{ promptTokens: NOT_NULL\(t\.usage\.promptTokens, 0\) \+ delta\.promptTokens,/,
    );
    expect(both).not.toContain('revision');
    expect(both).toMatch(
      /UPSERT \{ _key: @\w+ \} INSERT .* UPDATE \{ usage: \{ promptTokens: NOT_NULL\(OLD\.usage\.promptTokens, 0\) \+ delta\.promptTokens,/,
    );
    const workspaceOnly = squash(queries.addUsage({ ...usage, threadId: null }));
    expect(workspaceOnly).not.toContain('UPDATE t');
    expect(workspaceOnly).toContain('UPSERT');
  });

  it('reserves an Idempotency-Key only when no live record holds it, and tells its own reservation apart', () => {
    const query = queries.reserveIdempotencyKey(entry, 1_000, 90_000);
    const text = squash(query);
    expect(text).toContain(`FILTER existing == null OR existing.expiresAt <= ${bindVarOf(query, 1_000)}`);
    expect(text).toContain(`UPDATE OLD.expiresAt <= ${bindVarOf(query, 1_000)} ? reservation : {}`);
    expect(text).toContain(`RETURN NEW.reservation == ${bindVarOf(query, 'r-1')}`);
  });

  it("renews, completes and releases an Idempotency-Key only while it is in progress, and only the reservation of the caller's token", () => {
    const queriesInProgress = [
      queries.renewIdempotencyKey('idem_1', 'token-1', 1_000, 121_000, 3_720),
      queries.completeIdempotencyKey('idem_1', 'token-1', 'answer', 86_400_000, 90_000),
      queries.releaseIdempotencyKey('idem_1', 'token-1'),
    ];
    for (const query of queriesInProgress) {
      const text = squash(query);
      expect(text).toContain(
        `FILTER k._key == ${bindVarOf(query, 'idem_1')} AND k.reservation == ${bindVarOf(query, 'token-1')} AND k.state == ${bindVarOf(query, 'in_progress')}`,
      );
      // Each answers whether it acted, so a lapsed holder learns it did not.
      expect(text).toMatch(/RETURN true$/);
    }
    expect(Object.values(queries.completeIdempotencyKey('idem_1', 'token-1', undefined, 1, 1).bindVars)).toContain(
      null,
    );
  });

  it('renews only a live reservation, moving its expiry and its cleanup time', () => {
    const query = queries.renewIdempotencyKey('idem_1', 'token-1', 1_000, 121_000, 3_720);
    const text = squash(query);
    expect(text).toContain(`k.expiresAt > ${bindVarOf(query, 1_000)}`);
    expect(text).toContain(
      `UPDATE k WITH { expiresAt: ${bindVarOf(query, 121_000)}, removeAt: DATE_NOW() / 1000 + ${bindVarOf(query, 3_720)} }`,
    );
    expect(text).toMatch(/RETURN true$/);
  });

  it("keeps a completed answer from the reservation's creation time, not from the short hold", () => {
    const query = queries.completeIdempotencyKey('idem_1', 'token-1', 'answer', 86_400_000, 90_000);
    const text = squash(query);
    expect(text).toContain(`expiresAt: k.createdTime + ${bindVarOf(query, 86_400_000)}`);
    expect(text).toContain(`removeAt: DATE_NOW() / 1000 + ${bindVarOf(query, 90_000)}`);
    expect(text).toContain(`state: ${bindVarOf(query, 'completed')}`);
  });

  it('lists threads newest first with their kept message count, reading a history only for a document without one', () => {
    const query = queries.summaries('w', 'u', 'g');
    const text = squash(query);
    expect(text).toContain('SORT t.lastUpdatedTime DESC, t._key DESC');
    // No LET of the history per thread: the count is the document's own, the history a fallback of a ternary.
    expect(text).not.toMatch(/LET history/);
    const hidden = text.match(
      /messageCount: IS_NUMBER\(t\.messageCount\) \? t\.messageCount : LENGTH\(FOR shown IN NOT_NULL\(t\.conversationHistory, \[\]\) FILTER shown\.role NOT IN @(\w+) RETURN 1\)/,
    );
    expect(query.bindVars[hidden![1]]).toEqual(['system', 'event']);
    expect(text).toContain('pendingInterrupt: t.pendingInterrupt.interrupt != null');
  });

  it('keeps the count of shown messages with every commit', () => {
    const query = queries.commit({
      threadId: 'ai_1',
      operationId: 'op',
      expectedRevision: 3,
      discardFrom: null,
      append: [systemPrompt(), userMessage('Q'), assistantMessage('A')],
      patch: {},
      now: 5,
      operationsKept: 100,
    });
    const counted = squash(query).match(/: \(IS_NUMBER\(t\.messageCount\) \? t\.messageCount : .*?\)\) \+ @(\w+)/);
    expect(query.bindVars[counted![1]]).toBe(2);
  });

  it('never returns the bookkeeping of a thread document from a read', () => {
    const query = queries.thread('ai_1');
    expect(squash(query)).toMatch(/RETURN UNSET\(t, @\w+\)/);
    expect(Object.values(query.bindVars)).toContainEqual(['_id', '_rev', 'appliedOperationIds']);
  });
});
