import { aql } from 'arangojs';
import { AqlQuery } from 'arangojs/aql';
import { DocumentCollection } from 'arangojs/collections';
import type { ThreadMessage, UsageTotals } from '../thread.types';
import { type ArangoThreadDocument, shownMessageCount } from './arango-thread-document.mapper';

/** The collections the queries run against (arangojs objects: they become `@@` bind variables). */
export interface ArangoThreadCollections {
  threads: DocumentCollection;
  leases: DocumentCollection;
  workspaceUsage: DocumentCollection;
  idempotencyKeys: DocumentCollection;
}

/** Server metadata and bookkeeping a thread read never needs. */
const HIDDEN_THREAD_FIELDS = ['_id', '_rev', 'appliedOperationIds'];

export interface CommitParams {
  threadId: string;
  operationId: string;
  expectedRevision: number;
  /** The id of the first message removed before appending (ThreadCommit.discardFrom); null: none. */
  discardFrom: string | null;
  append: ThreadMessage[];
  /** Attributes replaced as given (ArangoThreadDocumentMapper.toCommitPatch). */
  patch: Partial<Pick<ArangoThreadDocument, 'pendingInterrupt' | 'title'>>;
  now: number;
  /** How many applied operation ids the document keeps. */
  operationsKept: number;
}

export interface LeaseParams {
  threadId: string;
  holder: string;
  now: number;
  expiresAt: number;
  /** Seconds, from the server's clock, before the TTL index may delete the record. */
  retentionSeconds: number;
}

export interface UsageParams {
  workspaceKey: string;
  workspace: string;
  threadId: string | null;
  usage: UsageTotals;
  now: number;
}

/** An Idempotency-Key record as written on reservation. */
export interface IdempotencyEntry {
  _key: string;
  workspace: string;
  userId: string;
  key: string;
  state: 'in_progress';
  response: null;
  /** Tells this reservation from a concurrent one (the caller's random token). */
  reservation: string;
  createdTime: number;
  expiresAt: number;
}

/**
 * Every AQL query of the ArangoDB thread repository, in one place. Each method returns an `AqlQuery`
 * built with the `aql` template only: every value (ids, holders, workspace, messages, even the fixed
 * state names) is a bind variable and every collection a `@@` bind variable; nothing is concatenated
 * into the text.
 *
 * Writes that depend on what they read are compare-and-set: `UPDATE`/`REMOVE` of the document read,
 * with `ignoreRevs: false`, fail with ArangoDB error 1200 when another writer changed it in between;
 * two concurrent inserts of one key make one fail (1200 or unique constraint 1210). The repository
 * runs those queries again (ArangoThreadQueryRunner): a failed query changed nothing.
 */
export class ArangoThreadQueries {
  constructor(private readonly c: ArangoThreadCollections) {}

  // ── threads ──────────────────────────────────────────────────────────────

  insertThread(document: ArangoThreadDocument): AqlQuery {
    return aql`INSERT ${document} INTO ${this.c.threads}`;
  }

  thread(threadId: string): AqlQuery {
    return aql`
      FOR t IN ${this.c.threads}
        FILTER t._key == ${threadId}
        LIMIT 1
        RETURN UNSET(t, ${HIDDEN_THREAD_FIELDS})`;
  }

  head(threadId: string): AqlQuery {
    return aql`
      FOR t IN ${this.c.threads}
        FILTER t._key == ${threadId}
        LIMIT 1
        RETURN { revision: t.revision, usage: t.usage }`;
  }

  /**
   * The owner's threads of one graph, most recently updated first, without their messages: the count
   * of what clients see is the document's own `messageCount` (kept by every commit), so the histories
   * are not read; only a document written before it was kept (or a title-less one, for its first
   * question) has its history read.
   */
  summaries(workspace: string, userId: string, graphKey: string): AqlQuery {
    return aql`
      FOR t IN ${this.c.threads}
        FILTER t.workspace == ${workspace} AND t.userId == ${userId} AND t.graphKey == ${graphKey}
        SORT t.lastUpdatedTime DESC, t._key DESC
        RETURN {
          threadId: t._key,
          graphKey: t.graphKey,
          title: t.title,
          type: t.type,
          automationId: t.automationId,
          firstQuestion: t.title == null ? FIRST(FOR asked IN NOT_NULL(t.conversationHistory, []) FILTER asked.role == ${'user'} LIMIT 1 RETURN asked.content) : null,
          createdTime: t.createdTime,
          lastUpdatedTime: t.lastUpdatedTime,
          messageCount: IS_NUMBER(t.messageCount) ? t.messageCount : LENGTH(FOR shown IN NOT_NULL(t.conversationHistory, []) FILTER shown.role NOT IN ${['system', 'event']} RETURN 1),
          pendingInterrupt: t.pendingInterrupt.interrupt != null
        }`;
  }

  /**
   * The approval queue: the workspace's threads with a pending interrupt, the user's own chats and (when
   * `includeAutomations`) every automation run, newest interrupt first. Documents without a type are chats.
   */
  pending(workspace: string, userId: string, includeAutomations: boolean, limit: number): AqlQuery {
    return aql`
      FOR t IN ${this.c.threads}
        FILTER t.workspace == ${workspace} AND t.pendingInterrupt.createdTime != null AND t.pendingInterrupt.interrupt != null
        LET type = t.type == ${'automation'} ? ${'automation'} : ${'chat'}
        FILTER (type == ${'chat'} AND t.userId == ${userId}) OR (type == ${'automation'} AND ${includeAutomations})
        SORT t.pendingInterrupt.createdTime DESC, t._key DESC
        LIMIT ${limit}
        RETURN { threadId: t._key, type, automationId: t.automationId, userId: t.userId, graphKey: t.graphKey, pendingInterrupt: t.pendingInterrupt }`;
  }

  /** Removes the thread and its lease (a run still holding it loses it): `[{ removed, released }]`. */
  removeThread(threadId: string): AqlQuery {
    return aql`
      LET removed = (FOR t IN ${this.c.threads} FILTER t._key == ${threadId} REMOVE t IN ${this.c.threads} RETURN 1)
      LET released = (FOR l IN ${this.c.leases} FILTER l._key == ${threadId} REMOVE l IN ${this.c.leases} RETURN 1)
      RETURN { removed: LENGTH(removed) > 0, released: LENGTH(released) > 0 }`;
  }

  /**
   * The commit itself: appends the round, applies the patch, bumps the revision and records the
   * operation id, only when the stored revision is the expected one and the operation is not among
   * those applied. Returns `[{ revision, lastUpdatedTime }]` when applied, `[]` otherwise (see
   * commitState). `mergeObjects: false`: a new pending interrupt replaces the old one whole.
   */
  commit(params: CommitParams): AqlQuery {
    return this.roundUpdate(params, aql`{}`);
  }

  /**
   * A run's last round (ThreadRepository.commit with its end): the round as commit() writes it, and only when it
   * applies, in the same query, the run's usage added to the thread (its revision moves once) and to the workspace,
   * and the holder's lease removed. Returns `[{ revision, lastUpdatedTime, released, counted }]` when the round
   * applied, `[]` otherwise (then nothing was written). Each collection is written once and none is read after its
   * write (AQL's rule for one query); on a single server the query is one transaction (a cluster applies it per
   * shard, as every multi-collection query here).
   */
  commitLastRound(params: CommitParams, end: { holder: string; usage: UsageParams | null }): AqlQuery {
    const { usage } = end;
    const threadUsage =
      usage === null
        ? aql`{}`
        : aql`{ usage: {
            promptTokens: NOT_NULL(t.usage.promptTokens, 0) + ${usage.usage.promptTokens},
            completionTokens: NOT_NULL(t.usage.completionTokens, 0) + ${usage.usage.completionTokens},
            cachedTokens: NOT_NULL(t.usage.cachedTokens, 0) + ${usage.usage.cachedTokens},
            totalTokens: NOT_NULL(t.usage.totalTokens, 0) + ${usage.usage.totalTokens},
            costUsd: NOT_NULL(t.usage.costUsd, 0) + ${usage.usage.costUsd},
            llmCalls: NOT_NULL(t.usage.llmCalls, 0) + ${usage.usage.llmCalls}
          } }`;
    const workspaceUsage =
      usage === null
        ? aql`LET counted = []`
        : aql`
      LET counted = (
        FOR applied IN committed
          LET delta = ${usage.usage}
          ${this.workspaceUsageUpsert(usage)}
          RETURN 1
      )`;
    return aql`
      LET committed = (${this.roundUpdate(params, threadUsage)})
      ${workspaceUsage}
      LET released = (
        FOR l IN ${this.c.leases}
          FILTER LENGTH(committed) > 0 AND l._key == ${params.threadId} AND l.holder == ${end.holder}
          LIMIT 1
          REMOVE l IN ${this.c.leases}
          OPTIONS { ignoreRevs: false }
          RETURN 1
      )
      FOR applied IN committed
        RETURN MERGE(applied, { released: LENGTH(released) > 0, counted: LENGTH(counted) > 0 })`;
  }

  /** The compare-and-set UPDATE of a round (see commit), with `extra` merged last into what it writes. */
  private roundUpdate(params: CommitParams, extra: AqlQuery): AqlQuery {
    const { threadId, operationId, expectedRevision } = params;
    return aql`
      FOR t IN ${this.c.threads}
        FILTER t._key == ${threadId}
        FILTER NOT_NULL(t.revision, 0) == ${expectedRevision}
        FILTER ${operationId} NOT IN NOT_NULL(t.appliedOperationIds, [])
        LIMIT 1
        LET history = NOT_NULL(t.conversationHistory, [])
        LET discarded = ${params.discardFrom} == null ? -1 : POSITION(history[*].id, ${params.discardFrom}, true)
        LET cut = discarded < 0 ? LENGTH(history) : discarded
        UPDATE t WITH MERGE(${params.patch}, {
          conversationHistory: APPEND(SLICE(history, 0, cut), ${params.append}),
          messageCount: (discarded >= 0
            ? LENGTH(FOR shown IN SLICE(history, 0, cut) FILTER shown.role NOT IN ${['system', 'event']} RETURN 1)
            : (IS_NUMBER(t.messageCount) ? t.messageCount : LENGTH(FOR shown IN history FILTER shown.role NOT IN ${['system', 'event']} RETURN 1))) + ${shownMessageCount(params.append)},
          revision: ${expectedRevision + 1},
          lastUpdatedTime: ${params.now},
          appliedOperationIds: SLICE(APPEND(NOT_NULL(t.appliedOperationIds, []), [${operationId}]), ${-params.operationsKept})
        }, ${extra}) IN ${this.c.threads}
        OPTIONS { ignoreRevs: false, mergeObjects: false, keepNull: true }
        RETURN { revision: NEW.revision, lastUpdatedTime: NEW.lastUpdatedTime }`;
  }

  /** Why a commit did not apply: the stored revision and whether the operation was already applied. */
  commitState(threadId: string, operationId: string): AqlQuery {
    return aql`
      FOR t IN ${this.c.threads}
        FILTER t._key == ${threadId}
        LIMIT 1
        RETURN {
          revision: NOT_NULL(t.revision, 0),
          lastUpdatedTime: NOT_NULL(t.lastUpdatedTime, t.createdTime),
          replayed: ${operationId} IN NOT_NULL(t.appliedOperationIds, [])
        }`;
  }

  // ── leases ───────────────────────────────────────────────────────────────

  /**
   * Takes the lease when it is free, expired, or already the holder's (a retried acquire), in one
   * query: nothing is written when another holder has it (`[]`). Returns `[true]` when the holder
   * now has it. The UPSERT checks the condition again on the version it writes over.
   */
  acquireLease(params: LeaseParams): AqlQuery {
    const { threadId, holder, now } = params;
    return aql`
      LET existing = FIRST(FOR l IN ${this.c.leases} FILTER l._key == ${threadId} LIMIT 1 RETURN l)
      FILTER existing == null OR existing.holder == ${holder} OR existing.expiresAt <= ${now}
      LET lease = { holder: ${holder}, expiresAt: ${params.expiresAt}, removeAt: DATE_NOW() / 1000 + ${params.retentionSeconds} }
      UPSERT { _key: ${threadId} }
        INSERT MERGE(lease, { _key: ${threadId}, threadId: ${threadId} })
        UPDATE OLD.holder == ${holder} OR OLD.expiresAt <= ${now} ? lease : {}
        IN ${this.c.leases}
      RETURN NEW.holder == ${holder}`;
  }

  /** Extends the holder's lease; `[true]` when it still held it. */
  renewLease(params: LeaseParams): AqlQuery {
    const { threadId, holder } = params;
    return aql`
      FOR l IN ${this.c.leases}
        FILTER l._key == ${threadId} AND l.holder == ${holder}
        LIMIT 1
        UPDATE l WITH { expiresAt: ${params.expiresAt}, removeAt: DATE_NOW() / 1000 + ${params.retentionSeconds} } IN ${this.c.leases}
        OPTIONS { ignoreRevs: false }
        RETURN true`;
  }

  releaseLease(threadId: string, holder: string): AqlQuery {
    return aql`
      FOR l IN ${this.c.leases}
        FILTER l._key == ${threadId} AND l.holder == ${holder}
        LIMIT 1
        REMOVE l IN ${this.c.leases}
        OPTIONS { ignoreRevs: false }`;
  }

  // ── usage ────────────────────────────────────────────────────────────────

  /**
   * Adds usage to the thread (when given; its revision does not move) and to the workspace totals, in
   * one query: both or neither. Missing totals count as 0.
   */
  addUsage(params: UsageParams): AqlQuery {
    const threadUpdate =
      params.threadId === null
        ? aql``
        : aql`
      LET touched = (
        FOR t IN ${this.c.threads}
          FILTER t._key == ${params.threadId}
          LIMIT 1
          UPDATE t WITH { usage: {
            promptTokens: NOT_NULL(t.usage.promptTokens, 0) + delta.promptTokens,
            completionTokens: NOT_NULL(t.usage.completionTokens, 0) + delta.completionTokens,
            cachedTokens: NOT_NULL(t.usage.cachedTokens, 0) + delta.cachedTokens,
            totalTokens: NOT_NULL(t.usage.totalTokens, 0) + delta.totalTokens,
            costUsd: NOT_NULL(t.usage.costUsd, 0) + delta.costUsd,
            llmCalls: NOT_NULL(t.usage.llmCalls, 0) + delta.llmCalls
          } } IN ${this.c.threads}
          OPTIONS { ignoreRevs: false, mergeObjects: false }
          RETURN 1
      )`;
    return aql`
      LET delta = ${params.usage}
      ${threadUpdate}
      ${this.workspaceUsageUpsert(params)}
      RETURN { workspace: NEW.usage, threadUpdated: ${params.threadId === null ? aql`false` : aql`LENGTH(touched) > 0`} }`;
  }

  /** Adds `delta` (a variable of the enclosing query) to the workspace's totals, creating them at the first use. */
  private workspaceUsageUpsert(usage: Pick<UsageParams, 'workspaceKey' | 'workspace' | 'now'>): AqlQuery {
    return aql`
      UPSERT { _key: ${usage.workspaceKey} }
        INSERT { _key: ${usage.workspaceKey}, workspace: ${usage.workspace}, usage: delta, updatedTime: ${usage.now} }
        UPDATE { usage: {
          promptTokens: NOT_NULL(OLD.usage.promptTokens, 0) + delta.promptTokens,
          completionTokens: NOT_NULL(OLD.usage.completionTokens, 0) + delta.completionTokens,
          cachedTokens: NOT_NULL(OLD.usage.cachedTokens, 0) + delta.cachedTokens,
          totalTokens: NOT_NULL(OLD.usage.totalTokens, 0) + delta.totalTokens,
          costUsd: NOT_NULL(OLD.usage.costUsd, 0) + delta.costUsd,
          llmCalls: NOT_NULL(OLD.usage.llmCalls, 0) + delta.llmCalls
        }, updatedTime: ${usage.now} }
        IN ${this.c.workspaceUsage}
        OPTIONS { mergeObjects: false }`;
  }

  workspaceUsage(workspaceKey: string): AqlQuery {
    return aql`
      FOR u IN ${this.c.workspaceUsage}
        FILTER u._key == ${workspaceKey}
        LIMIT 1
        RETURN u.usage`;
  }

  // ── idempotency keys ─────────────────────────────────────────────────────

  /**
   * Reserves the key unless a live record holds it (an expired record is replaced): `[true]` when this
   * call's reservation was written, `[]` or `[false]` otherwise (then read idempotencyState). Two
   * concurrent reservations of a free key cannot both win: the second insert (or update) of the same
   * key fails and, run again, finds the first one live. Nothing is read after the write (ArangoDB
   * refuses a read of a collection after its modification, even of a variable it may inline).
   */
  reserveIdempotencyKey(entry: IdempotencyEntry, now: number, retentionSeconds: number): AqlQuery {
    return aql`
      LET existing = FIRST(FOR k IN ${this.c.idempotencyKeys} FILTER k._key == ${entry._key} LIMIT 1 RETURN k)
      FILTER existing == null OR existing.expiresAt <= ${now}
      LET reservation = MERGE(${entry}, { removeAt: DATE_NOW() / 1000 + ${retentionSeconds} })
      UPSERT { _key: ${entry._key} }
        INSERT reservation
        UPDATE OLD.expiresAt <= ${now} ? reservation : {}
        IN ${this.c.idempotencyKeys}
        OPTIONS { mergeObjects: false }
      RETURN NEW.reservation == ${entry.reservation}`;
  }

  /** The live record of a key: `[{ state, response }]`, or `[]` when there is none (free or expired). */
  idempotencyState(id: string, now: number): AqlQuery {
    return aql`
      FOR k IN ${this.c.idempotencyKeys}
        FILTER k._key == ${id} AND k.expiresAt > ${now}
        LIMIT 1
        RETURN { state: k.state, response: k.response }`;
  }

  /**
   * Extends the live in-progress reservation holding `token`: `[true]` when there was one. The token
   * check keeps a holder whose reservation lapsed (and was taken over) off the newer reservation.
   */
  renewIdempotencyKey(id: string, token: string, now: number, expiresAt: number, retentionSeconds: number): AqlQuery {
    return aql`
      FOR k IN ${this.c.idempotencyKeys}
        FILTER k._key == ${id} AND k.reservation == ${token} AND k.state == ${'in_progress'} AND k.expiresAt > ${now}
        LIMIT 1
        UPDATE k WITH { expiresAt: ${expiresAt}, removeAt: DATE_NOW() / 1000 + ${retentionSeconds} } IN ${this.c.idempotencyKeys}
        OPTIONS { ignoreRevs: false }
        RETURN true`;
  }

  /**
   * The first answer, on the in-progress reservation holding `token`, kept `keepMs` from its creation
   * (the short hold of the reservation ends): `[true]` when stored.
   */
  completeIdempotencyKey(
    id: string,
    token: string,
    response: unknown,
    keepMs: number,
    retentionSeconds: number,
  ): AqlQuery {
    return aql`
      FOR k IN ${this.c.idempotencyKeys}
        FILTER k._key == ${id} AND k.reservation == ${token} AND k.state == ${'in_progress'}
        LIMIT 1
        UPDATE k WITH {
          state: ${'completed'},
          response: ${response ?? null},
          expiresAt: k.createdTime + ${keepMs},
          removeAt: DATE_NOW() / 1000 + ${retentionSeconds}
        } IN ${this.c.idempotencyKeys}
        OPTIONS { ignoreRevs: false, mergeObjects: false }
        RETURN true`;
  }

  /** Frees the key from the in-progress reservation holding `token`: `[true]` when removed. */
  releaseIdempotencyKey(id: string, token: string): AqlQuery {
    return aql`
      FOR k IN ${this.c.idempotencyKeys}
        FILTER k._key == ${id} AND k.reservation == ${token} AND k.state == ${'in_progress'}
        LIMIT 1
        REMOVE k IN ${this.c.idempotencyKeys}
        OPTIONS { ignoreRevs: false }
        RETURN true`;
  }
}
