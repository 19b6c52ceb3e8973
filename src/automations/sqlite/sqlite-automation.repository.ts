import type { Database, Statement } from 'better-sqlite3';
import type { Role } from '../../auth/principal';
import type {
  AutomationChanges,
  AutomationRun,
  AutomationRunActing,
  AutomationRunOutcome,
  StoredAutomation,
} from '../automation';
import type {
  AutomationRepository,
  ClaimResult,
  DueAutomation,
  ExpiredRun,
  RunClaim,
  RunOutcomeUpdate,
} from '../automation.repository';
import { LOST_RUN_MESSAGE } from '../automation-run.messages';
import { usageColumns } from '../../threads/sqlite/usage-columns';

interface AutomationRow {
  workspace: string;
  automation_id: string;
  user_id: string;
  user_role: Role;
  name: string;
  graph_key: string;
  prompt: string;
  cron: string;
  timezone: string;
  enabled: number;
  max_cost_usd_per_run: number | null;
  max_cost_usd_per_month: number | null;
  provider_config_id: string | null;
  next_run_time: number | null;
  disabled_reason: string | null;
  running_run_id: string | null;
  run_lease_expires_at: number | null;
  created_time: number;
  updated_time: number;
  prompt_editor_id: string | null;
  prompt_editor_role: Role | null;
}

interface RunRow {
  workspace: string;
  run_id: string;
  automation_id: string;
  thread_id: string | null;
  trigger: 'schedule' | 'manual';
  slot_time: number | null;
  started_time: number;
  finished_time: number | null;
  outcome: AutomationRunOutcome;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  total_tokens: number;
  cost_usd: number;
  llm_calls: number;
  error_code: string | null;
  error_message: string | null;
  acting_user_id: string | null;
  acting_role: Role | null;
  acting_on_behalf_of: string | null;
}

/** Columns a PATCH may set, by field of AutomationChanges (values are always bound). */
const CHANGE_COLUMNS: Record<Exclude<keyof AutomationChanges, 'schedule' | 'promptEditor'>, string> = {
  name: 'name',
  graphKey: 'graph_key',
  prompt: 'prompt',
  enabled: 'enabled',
  maxCostUsdPerRun: 'max_cost_usd_per_run',
  maxCostUsdPerMonth: 'max_cost_usd_per_month',
  providerConfigId: 'provider_config_id',
  nextRunTime: 'next_run_time',
  disabledReason: 'disabled_reason',
};

/**
 * AutomationRepository on the embedded SQLite file (tables of AUTOMATIONS_MIGRATION and
 * AUTOMATION_SPEND_MIGRATION). Claims are one `BEGIN IMMEDIATE` transaction around a guarded UPDATE,
 * so of several processes sharing the file exactly one claims a slot, and the run limits are counted
 * and taken in that one write. The connection belongs to SqlitePersistenceModule.
 */
export class SqliteAutomationRepository implements AutomationRepository {
  private readonly statements: ReturnType<typeof prepare>;
  private readonly claim: (claim: RunClaim, now: number) => ClaimResult;
  private readonly releaseLost: (now: number) => number;
  private readonly record: (workspace: string, runId: string, update: RunOutcomeUpdate) => boolean;

  constructor(private readonly db: Database) {
    this.statements = prepare(db);
    this.claim = db.transaction((claim: RunClaim, now: number) => this.claimIn(claim, now)).immediate;
    this.releaseLost = db.transaction((now: number) => {
      this.statements.markAllLost.run({ now, message: LOST_RUN_MESSAGE });
      return this.statements.releaseExpired.run(now).changes;
    }).immediate;
    this.record = db.transaction((workspace: string, runId: string, update: RunOutcomeUpdate) =>
      this.recordIn(workspace, runId, update),
    ).immediate;
  }

  async insert(automation: StoredAutomation): Promise<void> {
    this.statements.insert.run(toRow(automation));
  }

  async get(workspace: string, automationId: string): Promise<StoredAutomation | null> {
    const row = this.statements.get.get(workspace, automationId) as AutomationRow | undefined;
    return row ? toAutomation(row) : null;
  }

  async list(workspace: string): Promise<StoredAutomation[]> {
    return (this.statements.list.all(workspace) as AutomationRow[]).map(toAutomation);
  }

  async count(workspace: string): Promise<number> {
    return (this.statements.count.get(workspace) as { count: number }).count;
  }

  async update(
    workspace: string,
    automationId: string,
    changes: AutomationChanges,
    updatedTime: number,
  ): Promise<StoredAutomation | null> {
    const params: Record<string, unknown> = { workspace, automationId, now: updatedTime };
    const assignments: string[] = [];
    for (const [field, column] of Object.entries(CHANGE_COLUMNS) as Array<[keyof typeof CHANGE_COLUMNS, string]>) {
      const value = changes[field];
      if (value === undefined) continue;
      assignments.push(`${column} = @${field}`);
      params[field] = typeof value === 'boolean' ? (value ? 1 : 0) : value;
    }
    if (changes.schedule) {
      assignments.push('cron = @cron', 'timezone = @timezone');
      params.cron = changes.schedule.cron;
      params.timezone = changes.schedule.timezone;
    }
    if (changes.promptEditor) {
      assignments.push('prompt_editor_id = @promptEditorId', 'prompt_editor_role = @promptEditorRole');
      params.promptEditorId = changes.promptEditor.userId;
      params.promptEditorRole = changes.promptEditor.role;
    }
    const statement = this.db
      .prepare(`UPDATE ai_automations SET ${[...assignments, 'updated_time = MAX(@now, updated_time + 1)'].join(', ')}
      WHERE workspace = @workspace AND automation_id = @automationId`);
    if (statement.run(params).changes === 0) return null;
    return this.get(workspace, automationId);
  }

  async delete(workspace: string, automationId: string): Promise<boolean> {
    return this.db
      .transaction(() => {
        this.statements.deleteRuns.run(workspace, automationId);
        this.statements.deleteSpend.run(workspace, automationId);
        return this.statements.delete.run(workspace, automationId).changes > 0;
      })
      .immediate();
  }

  async listDue(now: number, limit: number, perWorkspace: number): Promise<DueAutomation[]> {
    return (
      this.statements.listDue.all({ now, limit, per_workspace: perWorkspace }) as Array<
        Pick<AutomationRow, 'workspace' | 'automation_id' | 'next_run_time'>
      >
    ).map((row) => ({
      workspace: row.workspace,
      automationId: row.automation_id,
      nextRunTime: row.next_run_time as number,
    }));
  }

  async claimRun(claim: RunClaim, now: number): Promise<ClaimResult> {
    return this.claim(claim, now);
  }

  async releaseLostRuns(now: number): Promise<number> {
    return this.releaseLost(now);
  }

  async renewRunLease(
    workspace: string,
    automationId: string,
    runId: string,
    leaseExpiresAt: number,
  ): Promise<boolean> {
    return this.statements.renewLease.run(leaseExpiresAt, workspace, automationId, runId).changes === 1;
  }

  async releaseRun(workspace: string, automationId: string, runId: string): Promise<void> {
    this.statements.release.run(workspace, automationId, runId);
  }

  async recordActing(workspace: string, runId: string, acting: AutomationRunActing): Promise<void> {
    this.statements.recordActing.run(acting.userId, acting.role, acting.onBehalfOf, workspace, runId);
  }

  async recordOutcome(workspace: string, runId: string, update: RunOutcomeUpdate): Promise<boolean> {
    return this.record(workspace, runId, update);
  }

  async getRun(workspace: string, runId: string): Promise<AutomationRun | null> {
    const row = this.statements.getRun.get(workspace, runId) as RunRow | undefined;
    return row ? toRun(row) : null;
  }

  async findRunByThread(workspace: string, threadId: string): Promise<AutomationRun | null> {
    const row = this.statements.runByThread.get(workspace, threadId) as RunRow | undefined;
    return row ? toRun(row) : null;
  }

  async listRuns(workspace: string, automationId: string, limit: number): Promise<AutomationRun[]> {
    return (this.statements.listRuns.all(workspace, automationId, limit) as RunRow[]).map(toRun);
  }

  async latestRuns(workspace: string, automationIds: readonly string[]): Promise<AutomationRun[]> {
    if (automationIds.length === 0) return [];
    return (this.statements.latestRuns.all(workspace, JSON.stringify(automationIds)) as RunRow[]).map(toRun);
  }

  async monthSpend(workspace: string, automationId: string, month: string): Promise<number> {
    return (this.statements.monthSpend.get(workspace, automationId, month) as { cost: number } | undefined)?.cost ?? 0;
  }

  async interruptedRuns(workspace: string, automationId: string): Promise<AutomationRun[]> {
    return (this.statements.interruptedRuns.all(workspace, automationId) as RunRow[]).map(toRun);
  }

  async staleInterruptedRuns(startedBefore: number, limit: number): Promise<AutomationRun[]> {
    return (this.statements.staleInterruptedRuns.all(startedBefore, limit) as RunRow[]).map(toRun);
  }

  async expiredRuns(startedBefore: number, kept: number, limit: number): Promise<ExpiredRun[]> {
    return (
      this.statements.expiredRuns.all({ before: startedBefore, kept, limit }) as Array<
        Pick<RunRow, 'workspace' | 'automation_id' | 'run_id' | 'thread_id'>
      >
    ).map((row) => ({
      workspace: row.workspace,
      automationId: row.automation_id,
      runId: row.run_id,
      threadId: row.thread_id,
    }));
  }

  async deleteRuns(workspace: string, runIds: readonly string[]): Promise<number> {
    if (runIds.length === 0) return 0;
    return this.statements.deleteRunsById.run(workspace, JSON.stringify(runIds)).changes;
  }

  private recordIn(workspace: string, runId: string, update: RunOutcomeUpdate): boolean {
    const run = this.statements.runState.get(workspace, runId) as
      Pick<RunRow, 'automation_id' | 'outcome' | 'error_code'> | undefined;
    if (!run) return false;
    const usage = usageColumns(update.usage);
    this.statements.addRunUsage.run({ workspace, run_id: runId, ...usage });
    if (usage.cost_usd > 0) {
      this.statements.addSpend.run({
        workspace,
        automation_id: run.automation_id,
        month: update.spendMonth,
        cost: usage.cost_usd,
      });
    }
    // The instance that lost its run (recorded lost when another took the automation over) ends it late: its outcome stays.
    if (run.outcome === 'skipped_budget' || (run.outcome === 'failed' && run.error_code === 'lost')) return false;
    this.statements.recordOutcome.run({
      workspace,
      run_id: runId,
      outcome: update.outcome,
      finished_time: update.finishedTime,
      thread_id: update.threadId ?? null,
      error_code: update.error?.code ?? null,
      error_message: update.error?.message ?? null,
    });
    return true;
  }

  private claimIn(claim: RunClaim, now: number): ClaimResult {
    const row = this.statements.get.get(claim.workspace, claim.automationId) as AutomationRow | undefined;
    if (!row) return { claimed: false, reason: 'gone' };
    const scheduled = claim.expectedNextRunTime !== undefined;
    if (scheduled && (row.enabled !== 1 || row.next_run_time !== claim.expectedNextRunTime))
      return { claimed: false, reason: 'not_due' };
    if (row.running_run_id !== null && (row.run_lease_expires_at ?? 0) > now) return { claimed: false, reason: 'busy' };
    const running = this.statements.runningCounts.get({ now, workspace: claim.workspace }) as {
      total: number;
      workspace: number;
    };
    if (running.total >= claim.limits.total) return { claimed: false, reason: 'limited', scope: 'service' };
    if (running.workspace >= claim.limits.perWorkspace)
      return { claimed: false, reason: 'limited', scope: 'workspace' };
    if (row.running_run_id !== null) {
      this.statements.markLost.run({
        workspace: claim.workspace,
        run_id: row.running_run_id,
        finished_time: now,
        message: LOST_RUN_MESSAGE,
      });
    }
    this.statements.claim.run({
      workspace: claim.workspace,
      automation_id: claim.automationId,
      run_id: claim.run.runId,
      lease: claim.leaseExpiresAt,
      set_next: scheduled ? 1 : 0,
      next_run_time: scheduled ? (claim.nextRunTime ?? null) : null,
      disabled_reason: scheduled && claim.nextRunTime === null ? (claim.disabledReason ?? null) : null,
    });
    this.statements.insertRun.run({
      workspace: claim.workspace,
      run_id: claim.run.runId,
      automation_id: claim.automationId,
      trigger: claim.run.trigger,
      slot_time: claim.run.slotTime,
      started_time: claim.run.startedTime,
    });
    return {
      claimed: true,
      automation: toAutomation(this.statements.get.get(claim.workspace, claim.automationId) as AutomationRow),
    };
  }
}

function prepare(db: Database) {
  const statement = (sql: string): Statement => db.prepare(sql);
  return {
    insert:
      statement(`INSERT INTO ai_automations (workspace, automation_id, user_id, user_role, name, graph_key, prompt, cron, timezone, enabled,
        max_cost_usd_per_run, max_cost_usd_per_month, provider_config_id, next_run_time, disabled_reason, running_run_id,
        run_lease_expires_at, created_time, updated_time, prompt_editor_id, prompt_editor_role)
      VALUES (@workspace, @automation_id, @user_id, @user_role, @name, @graph_key, @prompt, @cron, @timezone, @enabled,
        @max_cost_usd_per_run, @max_cost_usd_per_month, @provider_config_id, @next_run_time, @disabled_reason, @running_run_id,
        @run_lease_expires_at, @created_time, @updated_time, @prompt_editor_id, @prompt_editor_role)`),
    get: statement('SELECT * FROM ai_automations WHERE workspace = ? AND automation_id = ?'),
    list: statement('SELECT * FROM ai_automations WHERE workspace = ? ORDER BY created_time, automation_id'),
    count: statement('SELECT COUNT(*) AS count FROM ai_automations WHERE workspace = ?'),
    delete: statement('DELETE FROM ai_automations WHERE workspace = ? AND automation_id = ?'),
    deleteRuns: statement('DELETE FROM ai_automation_runs WHERE workspace = ? AND automation_id = ?'),
    deleteSpend: statement('DELETE FROM ai_automation_spend WHERE workspace = ? AND automation_id = ?'),
    // Busy automations are skipped, and each workspace lists no more than it may still start (its place
    // in its own due order within what its runs in progress leave): neither keeps the others waiting.
    listDue: statement(`WITH busy AS (
        SELECT workspace, COUNT(*) AS running FROM ai_automations
        WHERE running_run_id IS NOT NULL AND run_lease_expires_at > @now GROUP BY workspace
      ), due AS (
        SELECT a.workspace, a.automation_id, a.next_run_time, COALESCE(b.running, 0) AS running,
          ROW_NUMBER() OVER (PARTITION BY a.workspace ORDER BY a.next_run_time, a.automation_id) AS position
        FROM ai_automations a LEFT JOIN busy b ON b.workspace = a.workspace
        WHERE a.enabled = 1 AND a.next_run_time IS NOT NULL AND a.next_run_time <= @now
          AND (a.running_run_id IS NULL OR a.run_lease_expires_at <= @now)
      )
      SELECT workspace, automation_id, next_run_time FROM due WHERE running + position <= @per_workspace
      ORDER BY next_run_time, automation_id LIMIT @limit`),
    runningCounts: statement(`SELECT COUNT(*) AS total, COALESCE(SUM(workspace = @workspace), 0) AS workspace
      FROM ai_automations WHERE running_run_id IS NOT NULL AND run_lease_expires_at > @now`),
    claim: statement(`UPDATE ai_automations SET
        running_run_id = @run_id, run_lease_expires_at = @lease,
        next_run_time = CASE WHEN @set_next = 1 THEN @next_run_time ELSE next_run_time END,
        enabled = CASE WHEN @set_next = 1 AND @next_run_time IS NULL THEN 0 ELSE enabled END,
        disabled_reason = CASE WHEN @set_next = 1 AND @next_run_time IS NULL THEN @disabled_reason ELSE disabled_reason END
      WHERE workspace = @workspace AND automation_id = @automation_id`),
    markLost:
      statement(`UPDATE ai_automation_runs SET outcome = 'failed', finished_time = @finished_time, error_code = 'lost', error_message = @message
      WHERE workspace = @workspace AND run_id = @run_id AND outcome = 'running'`),
    insertRun:
      statement(`INSERT INTO ai_automation_runs (workspace, run_id, automation_id, trigger, slot_time, started_time, outcome)
      VALUES (@workspace, @run_id, @automation_id, @trigger, @slot_time, @started_time, 'running')`),
    markAllLost:
      statement(`UPDATE ai_automation_runs SET outcome = 'failed', finished_time = @now, error_code = 'lost', error_message = @message
      WHERE outcome = 'running' AND (workspace, run_id) IN (
        SELECT workspace, running_run_id FROM ai_automations WHERE running_run_id IS NOT NULL AND run_lease_expires_at <= @now)`),
    releaseExpired: statement(`UPDATE ai_automations SET running_run_id = NULL, run_lease_expires_at = NULL
      WHERE running_run_id IS NOT NULL AND run_lease_expires_at <= ?`),
    renewLease: statement(
      'UPDATE ai_automations SET run_lease_expires_at = ? WHERE workspace = ? AND automation_id = ? AND running_run_id = ?',
    ),
    release: statement(`UPDATE ai_automations SET running_run_id = NULL, run_lease_expires_at = NULL
      WHERE workspace = ? AND automation_id = ? AND running_run_id = ?`),
    runState: statement(
      'SELECT automation_id, outcome, error_code FROM ai_automation_runs WHERE workspace = ? AND run_id = ?',
    ),
    addRunUsage: statement(`UPDATE ai_automation_runs SET
        prompt_tokens = prompt_tokens + @prompt_tokens, completion_tokens = completion_tokens + @completion_tokens,
        cached_tokens = cached_tokens + @cached_tokens, total_tokens = total_tokens + @total_tokens,
        cost_usd = cost_usd + @cost_usd, llm_calls = llm_calls + @llm_calls
      WHERE workspace = @workspace AND run_id = @run_id`),
    addSpend: statement(`INSERT INTO ai_automation_spend (workspace, automation_id, month, cost_usd)
      VALUES (@workspace, @automation_id, @month, @cost)
      ON CONFLICT (workspace, automation_id, month) DO UPDATE SET cost_usd = cost_usd + excluded.cost_usd`),
    recordOutcome: statement(`UPDATE ai_automation_runs SET
        outcome = @outcome, finished_time = @finished_time, thread_id = COALESCE(@thread_id, thread_id),
        error_code = @error_code, error_message = @error_message
      WHERE workspace = @workspace AND run_id = @run_id`),
    getRun: statement('SELECT * FROM ai_automation_runs WHERE workspace = ? AND run_id = ?'),
    recordActing: statement(
      'UPDATE ai_automation_runs SET acting_user_id = ?, acting_role = ?, acting_on_behalf_of = ? WHERE workspace = ? AND run_id = ?',
    ),
    runByThread: statement('SELECT * FROM ai_automation_runs WHERE workspace = ? AND thread_id = ? LIMIT 1'),
    listRuns: statement(
      'SELECT * FROM ai_automation_runs WHERE workspace = ? AND automation_id = ? ORDER BY started_time DESC, run_id DESC LIMIT ?',
    ),
    latestRuns: statement(`SELECT * FROM (
        SELECT r.*, ROW_NUMBER() OVER (PARTITION BY r.automation_id ORDER BY r.started_time DESC, r.run_id DESC) AS position
        FROM ai_automation_runs r WHERE r.workspace = ? AND r.automation_id IN (SELECT value FROM json_each(?))
      ) WHERE position = 1`),
    monthSpend: statement(
      'SELECT cost_usd AS cost FROM ai_automation_spend WHERE workspace = ? AND automation_id = ? AND month = ?',
    ),
    interruptedRuns: statement(`SELECT * FROM ai_automation_runs
      WHERE workspace = ? AND automation_id = ? AND outcome = 'interrupted' ORDER BY started_time DESC, run_id DESC`),
    staleInterruptedRuns: statement(`SELECT * FROM ai_automation_runs
      WHERE outcome = 'interrupted' AND started_time < ? ORDER BY started_time, run_id LIMIT ?`),
    // By start (the runs_by_start index), then automation by automation beyond its newest @kept (by_automation).
    expiredRuns: statement(`SELECT workspace, automation_id, run_id, thread_id FROM (
        SELECT workspace, automation_id, run_id, thread_id FROM ai_automation_runs
        WHERE started_time < @before AND outcome NOT IN ('running', 'interrupted')
        UNION
        SELECT r.workspace, r.automation_id, r.run_id, r.thread_id FROM ai_automations a
        JOIN ai_automation_runs r ON r.workspace = a.workspace AND r.automation_id = a.automation_id
        WHERE r.outcome NOT IN ('running', 'interrupted') AND r.run_id IN (
          SELECT run_id FROM ai_automation_runs WHERE workspace = a.workspace AND automation_id = a.automation_id
          ORDER BY started_time DESC, run_id DESC LIMIT -1 OFFSET @kept)
      ) LIMIT @limit`),
    deleteRunsById: statement(
      'DELETE FROM ai_automation_runs WHERE workspace = ? AND run_id IN (SELECT value FROM json_each(?))',
    ),
  };
}

function toRow(automation: StoredAutomation): AutomationRow {
  return {
    workspace: automation.workspace,
    automation_id: automation.automationId,
    user_id: automation.userId,
    user_role: automation.userRole,
    name: automation.name,
    graph_key: automation.graphKey,
    prompt: automation.prompt,
    cron: automation.schedule.cron,
    timezone: automation.schedule.timezone,
    enabled: automation.enabled ? 1 : 0,
    max_cost_usd_per_run: automation.maxCostUsdPerRun ?? null,
    max_cost_usd_per_month: automation.maxCostUsdPerMonth ?? null,
    provider_config_id: automation.providerConfigId ?? null,
    next_run_time: automation.nextRunTime,
    disabled_reason: automation.disabledReason,
    running_run_id: automation.runningRunId,
    run_lease_expires_at: automation.runLeaseExpiresAt,
    created_time: automation.createdTime,
    updated_time: automation.updatedTime,
    prompt_editor_id: automation.promptEditor?.userId ?? null,
    prompt_editor_role: automation.promptEditor?.role ?? null,
  };
}

function toAutomation(row: AutomationRow): StoredAutomation {
  return {
    automationId: row.automation_id,
    workspace: row.workspace,
    userId: row.user_id,
    userRole: row.user_role,
    name: row.name,
    graphKey: row.graph_key,
    prompt: row.prompt,
    schedule: { cron: row.cron, timezone: row.timezone },
    enabled: row.enabled === 1,
    ...(row.max_cost_usd_per_run !== null ? { maxCostUsdPerRun: row.max_cost_usd_per_run } : {}),
    ...(row.max_cost_usd_per_month !== null ? { maxCostUsdPerMonth: row.max_cost_usd_per_month } : {}),
    ...(row.provider_config_id !== null ? { providerConfigId: row.provider_config_id } : {}),
    nextRunTime: row.next_run_time,
    disabledReason: row.disabled_reason ?? null,
    runningRunId: row.running_run_id,
    runLeaseExpiresAt: row.run_lease_expires_at,
    createdTime: row.created_time,
    updatedTime: row.updated_time,
    ...(row.prompt_editor_id !== null && row.prompt_editor_role !== null
      ? { promptEditor: { userId: row.prompt_editor_id, role: row.prompt_editor_role } }
      : {}),
  };
}

function toRun(row: RunRow): AutomationRun {
  return {
    runId: row.run_id,
    workspace: row.workspace,
    automationId: row.automation_id,
    threadId: row.thread_id,
    trigger: row.trigger,
    slotTime: row.slot_time,
    startedTime: row.started_time,
    finishedTime: row.finished_time,
    outcome: row.outcome,
    usage: {
      promptTokens: row.prompt_tokens,
      completionTokens: row.completion_tokens,
      cachedTokens: row.cached_tokens,
      totalTokens: row.total_tokens,
      costUsd: row.cost_usd,
      llmCalls: row.llm_calls,
    },
    error: row.error_code !== null ? { code: row.error_code, message: row.error_message ?? '' } : null,
    ...(row.acting_user_id !== null && row.acting_role !== null
      ? {
          acting: {
            userId: row.acting_user_id,
            role: row.acting_role,
            onBehalfOf: row.acting_on_behalf_of ?? row.acting_user_id,
          },
        }
      : {}),
  };
}
