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
  RunClaim,
  RunOutcomeUpdate,
} from '../automation.repository';
import { LOST_RUN_MESSAGE } from '../automation-run.messages';
import { ArangoAutomationDocument, ArangoAutomationQueries, ArangoRunDocument } from './arango-automation.queries';
import { runArangoSchemaSetup } from '../../database/arango/arango-schema.setup';

/** The collections of this store, beside Nodius's own (docs/protocol.md §2). */
export const ARANGO_AUTOMATION_NAMES = {
  automations: 'nodius_ai_automations',
  runs: 'nodius_ai_automation_runs',
} as const;

/**
 * AutomationRepository on ArangoDB (STORE=arango). A claim reads the automation and writes it, the lost
 * run, the new run and the pruning as steps of one stream transaction; the write on the automation is
 * checked against the revision read, so of several instances claiming one slot exactly one commits (the
 * others fail with a write conflict and claim nothing). The connection belongs to ArangoPersistenceModule.
 */
export class ArangoAutomationRepository implements AutomationRepository {
  private readonly queries: ArangoAutomationQueries;
  private readonly executor: ArangoQueryExecutor;
  private readonly collections: { write: string[] };

  constructor(db: Database) {
    this.queries = new ArangoAutomationQueries({
      automations: db.collection(ARANGO_AUTOMATION_NAMES.automations),
      runs: db.collection(ARANGO_AUTOMATION_NAMES.runs),
    });
    this.executor = new ArangoQueryExecutor(db);
    this.collections = { write: [ARANGO_AUTOMATION_NAMES.automations, ARANGO_AUTOMATION_NAMES.runs] };
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

  async listDue(now: number, limit: number): Promise<DueAutomation[]> {
    return this.executor.all<DueAutomation>(this.queries.dueAutomations(now, limit), 'automations.listDue');
  }

  async claimRun(claim: RunClaim, now: number): Promise<ClaimResult> {
    const scheduled = claim.expectedNextRunTime !== undefined;
    try {
      return await this.executor.transaction(
        this.collections,
        'automations.claimRun',
        async (step): Promise<ClaimResult> => {
          const [current] = await step<ArangoAutomationDocument>(this.queries.get(claim.workspace, claim.automationId));
          if (!current) return { claimed: false, reason: 'gone' };
          if (scheduled && (current.enabled !== true || current.nextRunTime !== claim.expectedNextRunTime))
            return { claimed: false, reason: 'not_due' };
          if (current.runningRunId && (current.runLeaseExpiresAt ?? 0) > now) return { claimed: false, reason: 'busy' };
          if (current.runningRunId)
            await step(this.queries.markLost(claim.workspace, current.runningRunId, now, LOST_RUN_MESSAGE));
          const [held] = await step<ArangoAutomationDocument>(
            this.queries.hold(current._key, current._rev as string, {
              runningRunId: claim.run.runId,
              runLeaseExpiresAt: claim.leaseExpiresAt,
              ...(scheduled ? { nextRunTime: claim.nextRunTime ?? null } : {}),
            }),
          );
          await step(this.queries.insertRun(newRun(claim)));
          await step(this.queries.pruneRuns(claim.workspace, claim.automationId, claim.runsKept));
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
      this.queries.expiredRuns(now),
      'automations.expiredRuns',
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

  async recordOutcome(workspace: string, runId: string, update: RunOutcomeUpdate): Promise<void> {
    await this.executor.all(this.queries.recordOutcome(workspace, runId, update), 'automations.recordOutcome');
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

  async costSince(workspace: string, automationId: string, since: number): Promise<number> {
    return (
      (await this.executor.first<number>(
        this.queries.costSince(workspace, automationId, since),
        'automations.costSince',
      )) ?? 0
    );
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
