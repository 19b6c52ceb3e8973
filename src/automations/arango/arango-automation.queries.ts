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

export interface AutomationCollections {
  automations: DocumentCollection;
  runs: DocumentCollection;
}

const FAILED = 'failed';
const RUNNING = 'running';
const LOST = 'lost';

/**
 * Every AQL query of the ArangoDB automation repository, built with the `aql` template only (values and
 * collections are bind variables). Every query of the API filters on the workspace; dueAutomations and
 * expiredRuns (the scheduler, over every workspace) do not. A query modifies each collection at most once
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

  /** Removes the automation and its runs (two collections, each modified once): `[removed?]`. */
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
      RETURN LENGTH(removed) > 0`;
  }

  dueAutomations(now: number, limit: number): AqlQuery {
    return aql`
      FOR a IN ${this.c.automations}
        FILTER a.enabled == true AND a.nextRunTime != null AND a.nextRunTime <= ${now}
        SORT a.nextRunTime
        LIMIT ${limit}
        RETURN { workspace: a.workspace, automationId: a._key, nextRunTime: a.nextRunTime }`;
  }

  expiredRuns(now: number): AqlQuery {
    return aql`
      FOR a IN ${this.c.automations}
        FILTER a.runningRunId != null AND a.runLeaseExpiresAt <= ${now}
        RETURN { workspace: a.workspace, automationId: a._key, runId: a.runningRunId, rev: a._rev }`;
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

  /** Removes the automation's runs beyond the newest `kept`. */
  pruneRuns(workspace: string, automationId: string, kept: number): AqlQuery {
    return aql`
      FOR r IN ${this.c.runs}
        FILTER r.workspace == ${workspace} AND r.automationId == ${automationId}
        SORT r.startedTime DESC, r._key DESC
        LIMIT ${kept}, ${1_000_000}
        REMOVE r IN ${this.c.runs}`;
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

  /** The outcome; the usage is added to the run's (a resume adds its own). */
  recordActing(workspace: string, runId: string, acting: AutomationRunActing): AqlQuery {
    return aql`
      FOR r IN ${this.c.runs}
        FILTER r.workspace == ${workspace} AND r._key == ${runId}
        LIMIT 1
        UPDATE r WITH { acting: ${acting} } IN ${this.c.runs}
        OPTIONS { mergeObjects: false }`;
  }

  recordOutcome(workspace: string, runId: string, update: RunOutcomeUpdate): AqlQuery {
    const usage: UsageTotals = update.usage;
    return aql`
      FOR r IN ${this.c.runs}
        FILTER r.workspace == ${workspace} AND r._key == ${runId}
        LIMIT 1
        LET delta = ${usage}
        UPDATE r WITH {
          outcome: ${update.outcome},
          finishedTime: ${update.finishedTime},
          threadId: NOT_NULL(${update.threadId ?? null}, r.threadId),
          error: ${update.error},
          usage: {
            promptTokens: r.usage.promptTokens + delta.promptTokens,
            completionTokens: r.usage.completionTokens + delta.completionTokens,
            cachedTokens: r.usage.cachedTokens + delta.cachedTokens,
            totalTokens: r.usage.totalTokens + delta.totalTokens,
            costUsd: r.usage.costUsd + delta.costUsd,
            llmCalls: r.usage.llmCalls + delta.llmCalls
          }
        } IN ${this.c.runs}
        OPTIONS { keepNull: true, mergeObjects: false }`;
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

  costSince(workspace: string, automationId: string, since: number): AqlQuery {
    return aql`
      FOR r IN ${this.c.runs}
        FILTER r.workspace == ${workspace} AND r.automationId == ${automationId} AND r.startedTime >= ${since}
        COLLECT AGGREGATE cost = SUM(r.usage.costUsd)
        RETURN NOT_NULL(cost, 0)`;
  }
}
