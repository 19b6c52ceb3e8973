import { Database } from 'arangojs';
import { ensureDocumentCollection } from '../../database/arango/arango-collection.ensurer';
import { ArangoQueryExecutor } from '../../database/arango/arango-query.executor';
import { AppError } from '../../errors/app-error';
import { EMPTY_USAGE } from '../../threads/thread.types';
import type { AutomationChanges, AutomationRun, AutomationRunActing, StoredAutomation } from '../automation';
import type {
  AutomationRepository,
  ClaimResult,
  DueAutomation,
  ExpiredRun,
  RunClaim,
  RunOutcomeUpdate,
} from '../automation.repository';
import { LOST_RUN_MESSAGE } from '../automation-run.messages';
import {
  ArangoAutomationDocument,
  ArangoAutomationQueries,
  ArangoRunDocument,
  ArangoRunState,
} from './arango-automation.queries';
import { hashedDocumentKey } from '../../database/arango/arango-hashed.key';
import { runArangoSchemaSetup } from '../../database/arango/arango-schema.setup';

/** The collections of this store, beside Nodius's own. */
export const ARANGO_AUTOMATION_NAMES = {
  automations: 'nodius_ai_automations',
  runs: 'nodius_ai_automation_runs',
  spend: 'nodius_ai_automation_spend',
} as const;

/** The `_key` of an automation's spend of one month (workspace and automation ids may hold any character). */
export function spendKey(workspace: string, automationId: string, month: string): string {
  return hashedDocumentKey('spend', [workspace, automationId, month]);
}

/**
 * AutomationRepository on ArangoDB (STORE=arango). A claim counts the runs in progress, reads the
 * automation and writes it, the lost run and the new run as steps of one stream transaction that holds
 * the automations collection exclusively: claims are serialized, so of several instances claiming one
 * slot exactly one wins, and two claims of different automations cannot both take the last place the
 * run limits leave. The write on the automation is also checked against the revision read. A recorded
 * outcome reads the run's state, adds the usage (and the month's spend) and writes the outcome in one
 * transaction. The connection belongs to ArangoPersistenceModule.
 */
export class ArangoAutomationRepository implements AutomationRepository {
  private readonly queries: ArangoAutomationQueries;
  private readonly executor: ArangoQueryExecutor;
  private readonly collections: { write: string[] };
  /** A claim's: serialized on the automations (the limits count across automations), writing the runs. */
  private readonly claimCollections: { exclusive: string[]; write: string[] };
  private readonly outcomeCollections: { write: string[] };

  constructor(db: Database) {
    this.queries = new ArangoAutomationQueries({
      automations: db.collection(ARANGO_AUTOMATION_NAMES.automations),
      runs: db.collection(ARANGO_AUTOMATION_NAMES.runs),
      spend: db.collection(ARANGO_AUTOMATION_NAMES.spend),
    });
    this.executor = new ArangoQueryExecutor(db);
    this.collections = { write: [ARANGO_AUTOMATION_NAMES.automations, ARANGO_AUTOMATION_NAMES.runs] };
    this.claimCollections = {
      exclusive: [ARANGO_AUTOMATION_NAMES.automations],
      write: [ARANGO_AUTOMATION_NAMES.runs],
    };
    this.outcomeCollections = { write: [ARANGO_AUTOMATION_NAMES.runs, ARANGO_AUTOMATION_NAMES.spend] };
  }

  /** Ensures the collections and indexes (idempotent, safe when several instances start at once). */
  static async open(db: Database): Promise<ArangoAutomationRepository> {
    await runArangoSchemaSetup(db, 'automation schema', async () => {
      for (const name of Object.values(ARANGO_AUTOMATION_NAMES)) await ensureDocumentCollection(db, name);
      const automations = db.collection(ARANGO_AUTOMATION_NAMES.automations);
      const runs = db.collection(ARANGO_AUTOMATION_NAMES.runs);
      await automations.ensureIndex({ type: 'persistent', fields: ['workspace', 'createdTime'], inBackground: true });
      await automations.ensureIndex({ type: 'persistent', fields: ['enabled', 'nextRunTime'], inBackground: true });
      await automations.ensureIndex({
        type: 'persistent',
        fields: ['runLeaseExpiresAt'],
        sparse: true,
        inBackground: true,
      });
      await runs.ensureIndex({
        type: 'persistent',
        fields: ['workspace', 'automationId', 'startedTime'],
        inBackground: true,
      });
      await runs.ensureIndex({
        type: 'persistent',
        fields: ['workspace', 'threadId'],
        sparse: true,
        inBackground: true,
      });
      // The retention's look by start, and the expiry's look at the interrupted runs.
      await runs.ensureIndex({ type: 'persistent', fields: ['startedTime'], inBackground: true });
      await runs.ensureIndex({ type: 'persistent', fields: ['outcome', 'startedTime'], inBackground: true });
    });
    return new ArangoAutomationRepository(db);
  }

  async insert(automation: StoredAutomation): Promise<void> {
    await this.executor.all(this.queries.insert(toDocument(automation)), 'automations.insert');
  }

  async get(workspace: string, automationId: string): Promise<StoredAutomation | null> {
    const document = await this.executor.first<ArangoAutomationDocument>(
      this.queries.get(workspace, automationId),
      'automations.get',
    );
    return document ? toAutomation(document) : null;
  }

  async list(workspace: string): Promise<StoredAutomation[]> {
    return (await this.executor.all<ArangoAutomationDocument>(this.queries.list(workspace), 'automations.list')).map(
      toAutomation,
    );
  }

  async count(workspace: string): Promise<number> {
    return (await this.executor.first<number>(this.queries.count(workspace), 'automations.count')) ?? 0;
  }

  async update(
    workspace: string,
    automationId: string,
    changes: AutomationChanges,
    updatedTime: number,
  ): Promise<StoredAutomation | null> {
    // A null removes the attribute (keepNull: false), which reads back as absent or null (nextRunTime: disabled).
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    const [document] = await this.executor.all<ArangoAutomationDocument>(
      this.queries.update(workspace, automationId, defined, updatedTime),
      'automations.update',
    );
    return document ? toAutomation(document) : null;
  }

  async delete(workspace: string, automationId: string): Promise<boolean> {
    return (
      (await this.executor.first<boolean>(this.queries.remove(workspace, automationId), 'automations.delete')) === true
    );
  }

  async listDue(now: number, limit: number, perWorkspace: number): Promise<DueAutomation[]> {
    return this.executor.all<DueAutomation>(
      this.queries.dueAutomations(now, limit, perWorkspace),
      'automations.listDue',
    );
  }

  async claimRun(claim: RunClaim, now: number): Promise<ClaimResult> {
    const scheduled = claim.expectedNextRunTime !== undefined;
    try {
      return await this.executor.transaction(
        this.claimCollections,
        'automations.claimRun',
        async (step): Promise<ClaimResult> => {
          const [current] = await step<ArangoAutomationDocument>(this.queries.get(claim.workspace, claim.automationId));
          if (!current) return { claimed: false, reason: 'gone' };
          if (scheduled && (current.enabled !== true || current.nextRunTime !== claim.expectedNextRunTime))
            return { claimed: false, reason: 'not_due' };
          if (current.runningRunId && (current.runLeaseExpiresAt ?? 0) > now) return { claimed: false, reason: 'busy' };
          const [running] = await step<{ total: number; workspace: number }>(
            this.queries.runningCounts(claim.workspace, now),
          );
          if (running.total >= claim.limits.total) return { claimed: false, reason: 'limited', scope: 'service' };
          if (running.workspace >= claim.limits.perWorkspace)
            return { claimed: false, reason: 'limited', scope: 'workspace' };
          if (current.runningRunId)
            await step(this.queries.markLost(claim.workspace, current.runningRunId, now, LOST_RUN_MESSAGE));
          const ends = scheduled && claim.nextRunTime === null;
          const [held] = await step<ArangoAutomationDocument>(
            this.queries.hold(current._key, current._rev as string, {
              runningRunId: claim.run.runId,
              runLeaseExpiresAt: claim.leaseExpiresAt,
              ...(scheduled ? { nextRunTime: claim.nextRunTime ?? null } : {}),
              ...(ends ? { enabled: false, disabledReason: claim.disabledReason ?? null } : {}),
            }),
          );
          await step(this.queries.insertRun(newRun(claim)));
          return { claimed: true, automation: toAutomation(held) };
        },
      );
    } catch (error) {
      // Another instance changed the automation first (it claimed the slot): nothing was written here.
      if (error instanceof AppError && error.code === 'conflict')
        return { claimed: false, reason: scheduled ? 'not_due' : 'busy' };
      throw error;
    }
  }

  async releaseLostRuns(now: number): Promise<number> {
    const expired = await this.executor.all<{ workspace: string; automationId: string; runId: string; rev: string }>(
      this.queries.expiredLeases(now),
      'automations.expiredLeases',
    );
    let released = 0;
    for (const run of expired) {
      try {
        await this.executor.transaction(this.collections, 'automations.releaseLostRun', async (step) => {
          await step(this.queries.letGo(run.automationId, run.rev));
          await step(this.queries.markLost(run.workspace, run.runId, now, LOST_RUN_MESSAGE));
        });
        released += 1;
      } catch (error) {
        // Claimed or renewed meanwhile: not lost.
        if (!(error instanceof AppError && error.code === 'conflict')) throw error;
      }
    }
    return released;
  }

  async renewRunLease(
    workspace: string,
    automationId: string,
    runId: string,
    leaseExpiresAt: number,
  ): Promise<boolean> {
    return (
      (
        await this.executor.all(
          this.queries.renewLease(workspace, automationId, runId, leaseExpiresAt),
          'automations.renewRunLease',
        )
      ).length > 0
    );
  }

  async releaseRun(workspace: string, automationId: string, runId: string): Promise<void> {
    await this.executor.all(this.queries.release(workspace, automationId, runId), 'automations.releaseRun');
  }

  async recordActing(workspace: string, runId: string, acting: AutomationRunActing): Promise<void> {
    await this.executor.all(this.queries.recordActing(workspace, runId, acting), 'automations.recordActing');
  }

  async recordOutcome(workspace: string, runId: string, update: RunOutcomeUpdate): Promise<boolean> {
    return this.executor.transaction(this.outcomeCollections, 'automations.recordOutcome', async (step) => {
      const [state] = await step<ArangoRunState>(this.queries.runState(workspace, runId));
      if (!state) return false;
      // The instance that lost its run (recorded lost when another took the automation over) ends it late: its outcome stays.
      const kept = state.outcome === 'skipped_budget' || (state.outcome === 'failed' && state.errorCode === 'lost');
      await step(this.queries.recordOutcome(workspace, runId, update, !kept));
      if (update.usage.costUsd > 0) {
        await step(
          this.queries.addSpend({
            _key: spendKey(workspace, state.automationId, update.spendMonth),
            workspace,
            automationId: state.automationId,
            month: update.spendMonth,
            costUsd: update.usage.costUsd,
          }),
        );
      }
      return !kept;
    });
  }

  async getRun(workspace: string, runId: string): Promise<AutomationRun | null> {
    const document = await this.executor.first<ArangoRunDocument>(
      this.queries.getRun(workspace, runId),
      'automations.getRun',
    );
    return document ? toRun(document) : null;
  }

  async findRunByThread(workspace: string, threadId: string): Promise<AutomationRun | null> {
    const document = await this.executor.first<ArangoRunDocument>(
      this.queries.runByThread(workspace, threadId),
      'automations.findRunByThread',
    );
    return document ? toRun(document) : null;
  }

  async listRuns(workspace: string, automationId: string, limit: number): Promise<AutomationRun[]> {
    return (
      await this.executor.all<ArangoRunDocument>(
        this.queries.listRuns(workspace, automationId, limit),
        'automations.listRuns',
      )
    ).map(toRun);
  }

  async latestRuns(workspace: string, automationIds: readonly string[]): Promise<AutomationRun[]> {
    if (automationIds.length === 0) return [];
    return (
      await this.executor.all<ArangoRunDocument>(
        this.queries.latestRuns(workspace, automationIds),
        'automations.latestRuns',
      )
    ).map(toRun);
  }

  async monthSpend(workspace: string, automationId: string, month: string): Promise<number> {
    return (
      (await this.executor.first<number>(
        this.queries.monthSpend(workspace, spendKey(workspace, automationId, month)),
        'automations.monthSpend',
      )) ?? 0
    );
  }

  async interruptedRuns(workspace: string, automationId: string): Promise<AutomationRun[]> {
    return (
      await this.executor.all<ArangoRunDocument>(
        this.queries.interruptedRuns(workspace, automationId),
        'automations.interruptedRuns',
      )
    ).map(toRun);
  }

  async staleInterruptedRuns(startedBefore: number, limit: number): Promise<AutomationRun[]> {
    return (
      await this.executor.all<ArangoRunDocument>(
        this.queries.staleInterruptedRuns(startedBefore, limit),
        'automations.staleInterruptedRuns',
      )
    ).map(toRun);
  }

  async expiredRuns(startedBefore: number, kept: number, limit: number): Promise<ExpiredRun[]> {
    return this.executor.all<ExpiredRun>(
      this.queries.expiredRuns(startedBefore, kept, limit),
      'automations.expiredRuns',
    );
  }

  async deleteRuns(workspace: string, runIds: readonly string[]): Promise<number> {
    if (runIds.length === 0) return 0;
    return (await this.executor.all(this.queries.deleteRuns(workspace, runIds), 'automations.deleteRuns')).length;
  }
}

function newRun(claim: RunClaim): ArangoRunDocument {
  return {
    _key: claim.run.runId,
    workspace: claim.workspace,
    automationId: claim.automationId,
    threadId: null,
    trigger: claim.run.trigger,
    slotTime: claim.run.slotTime,
    startedTime: claim.run.startedTime,
    finishedTime: null,
    outcome: 'running',
    usage: { ...EMPTY_USAGE },
    error: null,
  };
}

function toDocument(automation: StoredAutomation): ArangoAutomationDocument {
  const { automationId, ...rest } = automation;
  return { _key: automationId, ...rest };
}

function toAutomation(document: ArangoAutomationDocument): StoredAutomation {
  return {
    automationId: document._key,
    workspace: document.workspace,
    userId: document.userId,
    userRole: document.userRole,
    name: document.name,
    graphKey: document.graphKey,
    prompt: document.prompt,
    schedule: { cron: document.schedule.cron, timezone: document.schedule.timezone },
    enabled: document.enabled === true,
    ...(typeof document.maxCostUsdPerRun === 'number' ? { maxCostUsdPerRun: document.maxCostUsdPerRun } : {}),
    ...(typeof document.maxCostUsdPerMonth === 'number' ? { maxCostUsdPerMonth: document.maxCostUsdPerMonth } : {}),
    ...(typeof document.providerConfigId === 'string' ? { providerConfigId: document.providerConfigId } : {}),
    nextRunTime: typeof document.nextRunTime === 'number' ? document.nextRunTime : null,
    disabledReason: typeof document.disabledReason === 'string' ? document.disabledReason : null,
    runningRunId: document.runningRunId ?? null,
    runLeaseExpiresAt: typeof document.runLeaseExpiresAt === 'number' ? document.runLeaseExpiresAt : null,
    createdTime: document.createdTime,
    updatedTime: document.updatedTime,
    ...(document.promptEditor
      ? { promptEditor: { userId: document.promptEditor.userId, role: document.promptEditor.role } }
      : {}),
  };
}

function toRun(document: ArangoRunDocument): AutomationRun {
  const { _key, acting, ...rest } = document;
  return {
    runId: _key,
    ...rest,
    usage: { ...EMPTY_USAGE, ...rest.usage },
    error: rest.error ?? null,
    ...(acting ? { acting } : {}),
  };
}
