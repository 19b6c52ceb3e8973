import { aql } from 'arangojs';
import { AqlQuery } from 'arangojs/aql';
import { DocumentCollection } from 'arangojs/collections';
import type { UsageTotals } from '../../threads/thread.types';
import type { AutomationRun, AutomationRunActing, StoredAutomation } from '../automation';
import type { RunOutcomeUpdate } from '../automation.repository';

/** An automation in `nodius_ai_automations` (`_key` = automation id). */
export type ArangoAutomationDocument = Omit<StoredAutomation, 'automationId'> & { _key: string; _rev?: string };

/** A run in `nodius_ai_automation_runs` (`_key` = run id). */
export type ArangoRunDocument = Omit<AutomationRun, 'runId'> & { _key: string };

/** An automation's spend of one month in `nodius_ai_automation_spend` (`_key`: hashed workspace, automation, month). */
export interface ArangoSpendDocument {
  _key: string;
  workspace: string;
  automationId: string;
  month: string;
  costUsd: number;
}

/** What a run's record must not lose (recordOutcome reads it first). */
export interface ArangoRunState {
  automationId: string;
  outcome: AutomationRun['outcome'];
  errorCode: string | null;
}

export interface AutomationCollections {
  automations: DocumentCollection;
  runs: DocumentCollection;
  spend: DocumentCollection;
}

const FAILED = 'failed';
const RUNNING = 'running';
const LOST = 'lost';
const INTERRUPTED = 'interrupted';

/**
 * Every AQL query of the ArangoDB automation repository, built with the `aql` template only (values and
 * collections are bind variables). Every query of the API filters on the workspace; the scheduler's
 * (dueAutomations, expiredLeases, runningCounts, staleInterruptedRuns, expiredRuns) go over every workspace. A query modifies each collection at most once
 * (ArangoDB's rule); the claim's several writes run as steps of one stream transaction (the repository).
 */
export class ArangoAutomationQueries {
  constructor(private readonly c: AutomationCollections) {}

  insert(document: ArangoAutomationDocument): AqlQuery {
    return aql`INSERT ${document} INTO ${this.c.automations}`;
  }

  get(workspace: string, automationId: string): AqlQuery {
    return aql`
      FOR a IN ${this.c.automations}
        FILTER a.workspace == ${workspace} AND a._key == ${automationId}
        LIMIT 1
        RETURN a`;
  }

  list(workspace: string): AqlQuery {
    return aql`
      FOR a IN ${this.c.automations}
        FILTER a.workspace == ${workspace}
        SORT a.createdTime, a._key
        RETURN a`;
  }

  count(workspace: string): AqlQuery {
    return aql`
      FOR a IN ${this.c.automations}
        FILTER a.workspace == ${workspace}
        COLLECT WITH COUNT INTO count
        RETURN count`;
  }

  /** Sets the given fields (null removes one), moves updatedTime forward: `[NEW]` or `[]`. */
  update(workspace: string, automationId: string, changes: object, now: number): AqlQuery {
    return aql`
      FOR a IN ${this.c.automations}
        FILTER a.workspace == ${workspace} AND a._key == ${automationId}
        LIMIT 1
        UPDATE a WITH MERGE(${changes}, { updatedTime: MAX([${now}, a.updatedTime + 1]) }) IN ${this.c.automations}
        OPTIONS { keepNull: false, mergeObjects: false }
        RETURN NEW`;
  }

  /** Removes the automation, its runs and its spend (three collections, each modified once): `[removed?]`. */
  remove(workspace: string, automationId: string): AqlQuery {
    return aql`
      LET removed = (
        FOR a IN ${this.c.automations}
          FILTER a.workspace == ${workspace} AND a._key == ${automationId}
          REMOVE a IN ${this.c.automations}
          RETURN 1
      )
      LET runs = (
        FOR r IN ${this.c.runs}
          FILTER r.workspace == ${workspace} AND r.automationId == ${automationId}
          REMOVE r IN ${this.c.runs}
          RETURN 1
      )
      LET spend = (
        FOR s IN ${this.c.spend}
          FILTER s.workspace == ${workspace} AND s.automationId == ${automationId}
          REMOVE s IN ${this.c.spend}
          RETURN 1
      )
      RETURN LENGTH(removed) > 0`;
  }

  /**
   * Due automations, busy ones skipped, each workspace cut to what it may still start (`perWorkspace`
   * less its runs in progress), earliest first: see AutomationRepository.listDue. The runs in progress
   * are read through the sparse lease index (a range excludes null); the due ones through
   * [enabled, nextRunTime].
   */
  dueAutomations(now: number, limit: number, perWorkspace: number): AqlQuery {
    return aql`
      LET busy = MERGE(
        FOR a IN ${this.c.automations}
          FILTER a.runLeaseExpiresAt > ${now}
          COLLECT workspace = a.workspace WITH COUNT INTO running
          RETURN { [workspace]: running }
      )
      LET due = (
        FOR a IN ${this.c.automations}
          FILTER a.enabled == true AND a.nextRunTime != null AND a.nextRunTime <= ${now}
          FILTER a.runningRunId == null OR a.runLeaseExpiresAt == null OR a.runLeaseExpiresAt <= ${now}
          SORT a.nextRunTime, a._key
          RETURN { workspace: a.workspace, automationId: a._key, nextRunTime: a.nextRunTime }
      )
      LET allowed = FLATTEN(
        FOR d IN due
          COLLECT workspace = d.workspace INTO group = d
          RETURN SLICE(group, 0, MAX([0, ${perWorkspace} - NOT_NULL(busy[workspace], 0)]))
      )
      FOR d IN allowed
        SORT d.nextRunTime, d.automationId
        LIMIT ${limit}
        RETURN d`;
  }

  /**
   * Automations whose run's lease expired. The lease attribute is compared with a range that excludes
   * null, so the sparse index on it is used (a bare `<=` would match null too, which a sparse index
   * does not hold: the whole collection would be scanned).
   */
  expiredLeases(now: number): AqlQuery {
    return aql`
      FOR a IN ${this.c.automations}
        FILTER a.runLeaseExpiresAt != null AND a.runLeaseExpiresAt <= ${now}
        FILTER a.runningRunId != null
        RETURN { workspace: a.workspace, automationId: a._key, runId: a.runningRunId, rev: a._rev }`;
  }

  /** Runs in progress over every workspace and in `workspace` (the claim's limits), by the sparse lease index. */
  runningCounts(workspace: string, now: number): AqlQuery {
    return aql`
      LET running = (
        FOR a IN ${this.c.automations}
          FILTER a.runLeaseExpiresAt > ${now}
          FILTER a.runningRunId != null
          RETURN a.workspace
      )
      RETURN { total: LENGTH(running), workspace: LENGTH(running[* FILTER CURRENT == ${workspace}]) }`;
  }

  /** The claim's write on the automation, checked against the revision read in the same transaction. */
  hold(key: string, rev: string, fields: object): AqlQuery {
    return aql`
      UPDATE { _key: ${key}, _rev: ${rev} } WITH ${fields} IN ${this.c.automations}
        OPTIONS { ignoreRevs: false, keepNull: true, mergeObjects: false }
        RETURN NEW`;
  }

  /** Lets go of the automation, checked against the revision read (a sweep). */
  letGo(key: string, rev: string): AqlQuery {
    return aql`
      UPDATE { _key: ${key}, _rev: ${rev} } WITH { runningRunId: null, runLeaseExpiresAt: null } IN ${this.c.automations}
        OPTIONS { ignoreRevs: false, keepNull: true }`;
  }

  markLost(workspace: string, runId: string, now: number, message: string): AqlQuery {
    return aql`
      FOR r IN ${this.c.runs}
        FILTER r.workspace == ${workspace} AND r._key == ${runId} AND r.outcome == ${RUNNING}
        LIMIT 1
        UPDATE r WITH { outcome: ${FAILED}, finishedTime: ${now}, error: { code: ${LOST}, message: ${message} } } IN ${this.c.runs}`;
  }

  insertRun(document: ArangoRunDocument): AqlQuery {
    return aql`INSERT ${document} INTO ${this.c.runs}`;
  }

  renewLease(workspace: string, automationId: string, runId: string, leaseExpiresAt: number): AqlQuery {
    return aql`
      FOR a IN ${this.c.automations}
        FILTER a.workspace == ${workspace} AND a._key == ${automationId} AND a.runningRunId == ${runId}
        LIMIT 1
        UPDATE a WITH { runLeaseExpiresAt: ${leaseExpiresAt} } IN ${this.c.automations}
        RETURN 1`;
  }

  release(workspace: string, automationId: string, runId: string): AqlQuery {
    return aql`
      FOR a IN ${this.c.automations}
        FILTER a.workspace == ${workspace} AND a._key == ${automationId} AND a.runningRunId == ${runId}
        LIMIT 1
        UPDATE a WITH { runningRunId: null, runLeaseExpiresAt: null } IN ${this.c.automations}
        OPTIONS { keepNull: true }`;
  }

  recordActing(workspace: string, runId: string, acting: AutomationRunActing): AqlQuery {
    return aql`
      FOR r IN ${this.c.runs}
        FILTER r.workspace == ${workspace} AND r._key == ${runId}
        LIMIT 1
        UPDATE r WITH { acting: ${acting} } IN ${this.c.runs}
        OPTIONS { mergeObjects: false }`;
  }

  /** The state recordOutcome must respect: `[ArangoRunState]` or `[]`. */
  runState(workspace: string, runId: string): AqlQuery {
    return aql`
      FOR r IN ${this.c.runs}
        FILTER r.workspace == ${workspace} AND r._key == ${runId}
        LIMIT 1
        RETURN { automationId: r.automationId, outcome: r.outcome, errorCode: r.error.code }`;
  }

  /** Adds the usage to the run's; with `outcome`, also records the outcome (a resume adds its own usage). */
  recordOutcome(workspace: string, runId: string, update: RunOutcomeUpdate, writeOutcome: boolean): AqlQuery {
    const usage: UsageTotals = update.usage;
    const outcome = writeOutcome
      ? {
          outcome: update.outcome,
          finishedTime: update.finishedTime,
          error: update.error,
          ...(update.threadId !== undefined ? { threadId: update.threadId } : {}),
        }
      : {};
    return aql`
      FOR r IN ${this.c.runs}
        FILTER r.workspace == ${workspace} AND r._key == ${runId}
        LIMIT 1
        LET delta = ${usage}
        UPDATE r WITH MERGE(${outcome}, {
          usage: {
            promptTokens: r.usage.promptTokens + delta.promptTokens,
            completionTokens: r.usage.completionTokens + delta.completionTokens,
            cachedTokens: r.usage.cachedTokens + delta.cachedTokens,
            totalTokens: r.usage.totalTokens + delta.totalTokens,
            costUsd: r.usage.costUsd + delta.costUsd,
            llmCalls: r.usage.llmCalls + delta.llmCalls
          }
        }) IN ${this.c.runs}
        OPTIONS { keepNull: true, mergeObjects: false }`;
  }

  /** Adds `cost` to the automation's spend of `month` (created at the first cost), by its hashed key. */
  addSpend(spend: ArangoSpendDocument): AqlQuery {
    return aql`
      UPSERT { _key: ${spend._key} }
        INSERT ${spend}
        UPDATE { costUsd: OLD.costUsd + ${spend.costUsd} }
        IN ${this.c.spend}`;
  }

  monthSpend(workspace: string, key: string): AqlQuery {
    return aql`
      FOR s IN ${this.c.spend}
        FILTER s._key == ${key} AND s.workspace == ${workspace}
        RETURN s.costUsd`;
  }

  interruptedRuns(workspace: string, automationId: string): AqlQuery {
    return aql`
      FOR r IN ${this.c.runs}
        FILTER r.workspace == ${workspace} AND r.automationId == ${automationId} AND r.outcome == ${INTERRUPTED}
        SORT r.startedTime DESC, r._key DESC
        RETURN r`;
  }

  staleInterruptedRuns(startedBefore: number, limit: number): AqlQuery {
    return aql`
      FOR r IN ${this.c.runs}
        FILTER r.outcome == ${INTERRUPTED} AND r.startedTime < ${startedBefore}
        SORT r.startedTime, r._key
        LIMIT ${limit}
        RETURN r`;
  }

  /**
   * Runs the retention deletes (AutomationRepository.expiredRuns): those started before the cutoff,
   * through the [startedTime] index, then, automation by automation (a small collection), those beyond
   * its newest `kept` through the [workspace, automationId, startedTime] index; never a running or
   * interrupted one.
   */
  expiredRuns(startedBefore: number, kept: number, limit: number): AqlQuery {
    return aql`
      LET old = (
        FOR r IN ${this.c.runs}
          FILTER r.startedTime < ${startedBefore}
          FILTER r.outcome NOT IN ${[RUNNING, INTERRUPTED]}
          SORT r.startedTime, r._key
          LIMIT ${limit}
          RETURN { workspace: r.workspace, automationId: r.automationId, runId: r._key, threadId: r.threadId }
      )
      LET beyond = FLATTEN(
        FOR a IN ${this.c.automations}
          RETURN (
            FOR r IN ${this.c.runs}
              FILTER r.workspace == a.workspace AND r.automationId == a._key
              SORT r.startedTime DESC, r._key DESC
              LIMIT ${kept}, ${limit}
              FILTER r.outcome NOT IN ${[RUNNING, INTERRUPTED]}
              RETURN { workspace: r.workspace, automationId: r.automationId, runId: r._key, threadId: r.threadId }
          )
      )
      FOR run IN UNION_DISTINCT(old, beyond)
        LIMIT ${limit}
        RETURN run`;
  }

  deleteRuns(workspace: string, runIds: readonly string[]): AqlQuery {
    return aql`
      FOR r IN ${this.c.runs}
        FILTER r.workspace == ${workspace} AND r._key IN ${runIds}
        REMOVE r IN ${this.c.runs}
        RETURN 1`;
  }

  getRun(workspace: string, runId: string): AqlQuery {
    return aql`
      FOR r IN ${this.c.runs}
        FILTER r.workspace == ${workspace} AND r._key == ${runId}
        LIMIT 1
        RETURN r`;
  }

  runByThread(workspace: string, threadId: string): AqlQuery {
    return aql`
      FOR r IN ${this.c.runs}
        FILTER r.workspace == ${workspace} AND r.threadId == ${threadId}
        LIMIT 1
        RETURN r`;
  }

  listRuns(workspace: string, automationId: string, limit: number): AqlQuery {
    return aql`
      FOR r IN ${this.c.runs}
        FILTER r.workspace == ${workspace} AND r.automationId == ${automationId}
        SORT r.startedTime DESC, r._key DESC
        LIMIT ${limit}
        RETURN r`;
  }

  latestRuns(workspace: string, automationIds: readonly string[]): AqlQuery {
    return aql`
      FOR id IN ${automationIds}
        LET latest = FIRST(
          FOR r IN ${this.c.runs}
            FILTER r.workspace == ${workspace} AND r.automationId == id
            SORT r.startedTime DESC, r._key DESC
            LIMIT 1
            RETURN r
        )
        FILTER latest != null
        RETURN latest`;
  }
}
