import { BeforeApplicationShutdown, Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { ActiveRunRegistry } from '../ai/runs/active-run.registry';
import type { Role } from '../auth/principal';
import { RunAutomation } from '../ai/use-cases/run-automation.use-case';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { AppError } from '../errors/app-error';
import { Logger } from '../observability/logger';
import { lowestRole, MemberRoles } from '../policy/member-roles/member-roles';
import { WorkspaceLlmProviders } from '../providers/configs/workspace-llm-providers';
import { TokenTracker } from '../providers/token.tracker';
import { generateSortableId } from '../threads/sortable-id.generator';
import { EMPTY_USAGE } from '../threads/thread.types';
import type { AutomationRun, StoredAutomation } from './automation';
import { AutomationBudget, RunModel } from './automation-budget';
import { AUTOMATION_CLOCK, AutomationClock } from './automation-clock';
import type { AutomationRepository, ClaimResult, DueAutomation, RunLimits } from './automation.repository';
import { AUTOMATION_REPOSITORY } from './automation-repository.token';
import { AutomationRunSink } from './automation-run.sink';
import { AutomationRunThreads } from './automation-run.threads';
import { runErrorOf } from './run-outcome';
import { resolvePlaceholders } from './schedule/prompt-placeholders';
import { RunLeaseKeeper } from './run-lease.keeper';
import { formatZonedDateTime, zonedMonth } from './schedule/zoned-calendar';

/** Owner of automation runs in the ActiveRunRegistry (sockets use their id, REST "http"). */
const RUN_OWNER = 'automation';
/** How far back {{lastRunTime}} looks for a run that ran (skipped runs do not count). */
const PREVIOUS_RUNS_SCANNED = 50;

const logger = new Logger('automations');

/** What the claim of a run started. */
interface StartedRun {
  automation: StoredAutomation;
  runId: string;
  trigger: AutomationRun['trigger'];
  startedTime: number;
}

/**
 * Starts the runs of automations: claims a run in the store (one winner per slot
 * across instances, one run per automation at a time), checks its budget (a spent one: skipped_budget,
 * no upstream call), resolves its prompt's placeholders in the automation's time zone, computes who it acts
 * as (its creator, with no more than the creator's current role and the role of
 * whoever last set its prompt or schedule; recorded on the run), and runs it through RunAutomation, the same
 * loop as chat, without a socket. A claim respects the run limits (AUTOMATION_MAX_RUNS,
 * AUTOMATION_MAX_RUNS_PER_WORKSPACE, over every instance): a scheduled slot that finds no place stays due and is
 * claimed once one frees. The run holds the automation under a lease renewed while it runs (RunLeaseKeeper: a hold
 * that cannot be renewed in time stops the run), joins the ActiveRunRegistry (so a shutdown stops it like any
 * generation: its partial text kept, its thread valid), and is recorded by AutomationRunRecorder when it ends.
 */
@Injectable()
export class AutomationRunner implements OnModuleDestroy, BeforeApplicationShutdown {
  private readonly executions = new Map<string, Promise<void>>();
  private stopping = false;
  private readonly leaseMs: number;
  private readonly limits: RunLimits;

  constructor(
    @Inject(AUTOMATION_REPOSITORY) private readonly automations: AutomationRepository,
    private readonly runAutomation: RunAutomation,
    private readonly runs: ActiveRunRegistry,
    private readonly runThreads: AutomationRunThreads,
    private readonly memberRoles: MemberRoles,
    private readonly tokens: TokenTracker,
    private readonly providers: WorkspaceLlmProviders,
    @Inject(AUTOMATION_CLOCK) private readonly clock: AutomationClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.leaseMs = config.agent.threadLeaseMs;
    this.limits = { total: config.automations.maxRuns, perWorkspace: config.automations.maxRunsPerWorkspace };
  }

  /**
   * Claims a due slot and starts its run in the background. The claim's result: `limited` when the run
   * limits left no place (the slot stays due; the scheduler stops claiming for a full service).
   */
  async startScheduled(
    due: DueAutomation,
    next: { nextRunTime: number | null; disabledReason?: string },
  ): Promise<ClaimResult & { runId?: string }> {
    if (this.stopping) return { claimed: false, reason: 'not_due' };
    const startedTime = this.clock.now();
    const runId = newRunId(startedTime);
    const claim = await this.automations.claimRun(
      {
        workspace: due.workspace,
        automationId: due.automationId,
        run: { runId, trigger: 'schedule', slotTime: due.nextRunTime, startedTime },
        expectedNextRunTime: due.nextRunTime,
        nextRunTime: next.nextRunTime,
        ...(next.disabledReason !== undefined ? { disabledReason: next.disabledReason } : {}),
        leaseExpiresAt: startedTime + this.leaseMs,
        limits: this.limits,
      },
      startedTime,
    );
    if (!claim.claimed) {
      logger.debug('automation_slot_not_claimed', {
        workspace: due.workspace,
        automationId: due.automationId,
        reason: claim.reason,
        ...(claim.reason === 'limited' ? { scope: claim.scope } : {}),
      });
      return claim;
    }
    if (claim.automation.disabledReason !== null)
      logger.warn('automation_disabled', {
        workspace: due.workspace,
        automationId: due.automationId,
        reason: claim.automation.disabledReason,
      });
    // launch() catches and logs its own failures: the scheduler's tick does not wait for the run.
    void this.launch({ automation: claim.automation, runId, trigger: 'schedule', startedTime });
    return { ...claim, runId };
  }

  /**
   * POST /api/ai/automations/:id/run: a run now, whatever the schedule (also when disabled). Answers once
   * its thread exists (threadId null when it did not get one: skipped_budget, or failed before).
   * conflict (409) while another run of the automation is in progress.
   */
  async runNow(workspace: string, automationId: string): Promise<{ runId: string; threadId: string | null }> {
    if (this.stopping)
      throw new AppError('server_error', 'The service is shutting down; retry on another instance', undefined, {
        retryable: true,
      });
    const startedTime = this.clock.now();
    const runId = newRunId(startedTime);
    const claim = await this.automations.claimRun(
      {
        workspace,
        automationId,
        run: { runId, trigger: 'manual', slotTime: null, startedTime },
        leaseExpiresAt: startedTime + this.leaseMs,
        limits: this.limits,
      },
      startedTime,
    );
    if (!claim.claimed) {
      if (claim.reason === 'gone') throw AppError.notFound('Automation not found');
      if (claim.reason === 'limited') {
        const [limit, variable] =
          claim.scope === 'workspace'
            ? [this.limits.perWorkspace, 'AUTOMATION_MAX_RUNS_PER_WORKSPACE']
            : [this.limits.total, 'AUTOMATION_MAX_RUNS'];
        throw new AppError(
          'rate_limit',
          `${limit} automation run(s) ${claim.scope === 'workspace' ? 'of this workspace ' : ''}are in progress, as many as ${variable} allows: retry once one ends`,
          { automationId },
          { retryable: true },
        );
      }
      throw new AppError('conflict', 'A run of this automation is in progress', { automationId }, { retryable: true });
    }
    let threadKnown!: (threadId: string | null) => void;
    const thread = new Promise<string | null>((resolve) => (threadKnown = resolve));
    const execution = this.launch({ automation: claim.automation, runId, trigger: 'manual', startedTime }, threadKnown);
    return { runId, threadId: await Promise.race([thread, execution.then(() => null)]) };
  }

  /** Stops a run executing here (its automation was deleted); false when it is not here. */
  stop(runId: string): boolean {
    return this.runs.stop(RUN_OWNER, runId, 'interrupt');
  }

  /** No new run starts on this instance from now on (shutdown). */
  onModuleDestroy(): void {
    this.stopping = true;
  }

  /** Runs still executing (started while the shutdown began) are stopped and awaited before the stores close. */
  async beforeApplicationShutdown(): Promise<void> {
    for (const runId of this.executions.keys()) this.runs.stop(RUN_OWNER, runId, 'shutdown');
    await Promise.all(this.executions.values());
  }

  private launch(run: StartedRun, threadKnown?: (threadId: string | null) => void): Promise<void> {
    const execution = this.execute(run, threadKnown)
      .catch((error: unknown) => {
        logger.error('automation_run_crashed', {
          automationId: run.automation.automationId,
          runId: run.runId,
          error: describe(error),
        });
      })
      .finally(() => {
        this.executions.delete(run.runId);
        threadKnown?.(null);
      });
    this.executions.set(run.runId, execution);
    return execution;
  }

  private async execute(run: StartedRun, threadKnown?: (threadId: string | null) => void): Promise<void> {
    const { automation, runId } = run;
    const { workspace, automationId } = automation;
    const locale = this.config.locale;
    try {
      const budget = await AutomationBudget.of(automation, this.automations, run.startedTime, locale);
      const refusal = budget.refusal(this.tokens, await this.runModel(automation));
      if (refusal) {
        await this.automations.recordOutcome(workspace, runId, {
          outcome: 'skipped_budget',
          finishedTime: this.clock.now(),
          usage: EMPTY_USAGE,
          spendMonth: zonedMonth(run.startedTime, automation.schedule.timezone),
          error: refusal,
        });
        logger.info('automation_run_skipped_budget', { workspace, automationId, runId });
        return;
      }
      const prompt = resolvePlaceholders(automation.prompt, {
        now: run.startedTime,
        lastRunTime: await this.previousRunStart(automation, runId),
        timezone: automation.schedule.timezone,
      });
      await this.converse(run, prompt, budget, threadKnown);
    } finally {
      await this.automations.releaseRun(workspace, automationId, runId);
    }
  }

  /** The run itself: RunAutomation.execute under the registry and the automation's lease. */
  private async converse(
    run: StartedRun,
    prompt: string,
    budget: AutomationBudget,
    threadKnown?: (threadId: string | null) => void,
  ): Promise<void> {
    const { automation, runId } = run;
    const { workspace, automationId } = automation;
    const sink = new AutomationRunSink((threadId) => {
      this.runThreads.started(threadId, runId);
      threadKnown?.(threadId);
    });
    const active = this.runs.begin(RUN_OWNER, runId, sink);
    if (!active) throw new Error(`Run ${runId} is already registered`);
    // Taken over (this instance stalled past the lease), or not renewable before it runs out: stop, never run twice.
    const lease = new RunLeaseKeeper(
      this.automations,
      { workspace, automationId, runId },
      this.leaseMs,
      this.clock,
      (reason) => {
        logger.warn('automation_run_lease_lost', { workspace, automationId, runId, reason });
        active.stop('interrupt');
      },
    );
    lease.start();
    logger.info('automation_run_started', { workspace, automationId, runId, trigger: run.trigger });
    try {
      const role = await this.actingRole(automation);
      await this.automations.recordActing(workspace, runId, {
        userId: automation.userId,
        role,
        onBehalfOf: automation.userId,
      });
      await this.runAutomation.execute(
        {
          acting: {
            principal: { userId: automation.userId, workspace, role },
            automation: { automationId, onBehalfOf: automation.userId },
          },
          graphKey: automation.graphKey,
          prompt,
          title: runTitle(automation, run.startedTime),
          providerConfigId: automation.providerConfigId,
          budget,
        },
        sink,
        active.signal,
      );
    } catch (error) {
      // With a thread, the run's end was recorded by AutomationRunRecorder; before one, it is recorded here.
      if (sink.threadId === null) {
        await this.automations.recordOutcome(workspace, runId, {
          outcome: 'failed',
          finishedTime: this.clock.now(),
          usage: EMPTY_USAGE,
          spendMonth: zonedMonth(this.clock.now(), automation.schedule.timezone),
          error: runErrorOf(error),
        });
      }
      logger.info('automation_run_failed', { workspace, automationId, runId, code: runErrorOf(error).code });
    } finally {
      lease.stop();
      if (sink.threadId) this.runThreads.ended(sink.threadId);
      active.end();
    }
  }

  /**
   * The role a run acts with, checked now: no higher than its creator's current role (as
   * their latest token showed it) nor than the role of whoever last set its prompt or schedule.
   */
  private async actingRole(automation: StoredAutomation): Promise<Role> {
    const creator = await this.memberRoles.currentRole(automation.workspace, automation.userId, automation.userRole);
    // An automation from before editors were recorded: its creator set its prompt, with the role it was created with.
    return lowestRole(creator, automation.promptEditor?.role ?? automation.userRole);
  }

  /** The model the run would call and whether it has a price (a cost budget needs one). */
  private async runModel(automation: StoredAutomation): Promise<RunModel> {
    const price = await this.providers.priceOfRun(automation.workspace, automation.providerConfigId);
    return { provider: price.provider, model: price.model, priced: price.pricing !== null };
  }

  /** The start of the automation's previous run that ran ({{lastRunTime}}); null before the first. */
  private async previousRunStart(automation: StoredAutomation, runId: string): Promise<number | null> {
    const runs: AutomationRun[] = await this.automations.listRuns(
      automation.workspace,
      automation.automationId,
      PREVIOUS_RUNS_SCANNED,
    );
    return runs.find((run) => run.runId !== runId && run.outcome !== 'skipped_budget')?.startedTime ?? null;
  }
}

function newRunId(now: number): string {
  return generateSortableId('run_', now);
}

/** "Weekly report · 2026-03-30 09:00" (local time of the automation). */
function runTitle(automation: StoredAutomation, startedTime: number): string {
  const local = formatZonedDateTime(startedTime, automation.schedule.timezone).slice(0, 16).replace('T', ' ');
  return `${automation.name.slice(0, 40)} · ${local}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
