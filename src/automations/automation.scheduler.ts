import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { Logger } from '../observability/logger';
import { AUTOMATION_CLOCK, AutomationClock } from './automation-clock';
import type { AutomationRepository, ClaimResult, DueAutomation } from './automation.repository';
import { AUTOMATION_REPOSITORY } from './automation-repository.token';
import { AutomationHousekeeper } from './automation.housekeeper';
import { AutomationRunner } from './automation.runner';
import { CronSchedule } from './schedule/cron-schedule';

/** Due automations claimed per tick (the rest wait for the next tick). */
const DUE_PER_TICK = 50;
/** How often a scheduling instance runs the housekeeping (expired interrupts, retention). */
export const HOUSEKEEPING_INTERVAL_MS = 60_000;

const logger = new Logger('automations');

/**
 * Starts the automations that are due. Every AUTOMATION_POLL_MS it
 * asks the store for the enabled automations whose next slot has come, and claims each: the claim
 * moves the slot to the schedule's first one after now, atomically, so that of several instances
 * polling one store exactly one starts the run, and the slots missed while no instance was up give one
 * run, not one per slot. The timers only decide when to look; the store decides what runs: busy
 * automations and workspaces at their run limit are not listed, and a claim the service-wide limit
 * refuses ends the tick (the slots wait, earliest first, for a place). It also sweeps runs whose
 * instance went away (their lease expired) as lost, and once a minute runs the housekeeping
 * (AutomationHousekeeper). A schedule that became unusable disables its automation with the reason in
 * its state. AUTOMATIONS_ENABLED=false leaves an instance out of scheduling (its API still works, and
 * its own run-now requests run on it).
 */
@Injectable()
export class AutomationScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;
  private lastHousekeeping = Number.NEGATIVE_INFINITY;

  constructor(
    @Inject(AUTOMATION_REPOSITORY) private readonly automations: AutomationRepository,
    private readonly runner: AutomationRunner,
    private readonly housekeeper: AutomationHousekeeper,
    @Inject(AUTOMATION_CLOCK) private readonly clock: AutomationClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.automations.schedulerEnabled) {
      logger.info('automation_scheduler_disabled', {});
      return;
    }
    logger.info('automation_scheduler_started', { pollMs: this.config.automations.pollMs });
    this.schedule(0);
  }

  /**
   * One look at the store: lost runs released, due slots claimed and their runs started (in the
   * background). Answers the ids of the runs this instance started. Never throws: a failure is logged
   * and the next tick tries again.
   */
  async tick(): Promise<string[]> {
    if (this.stopped) return [];
    const now = this.clock.now();
    const started: string[] = [];
    try {
      const lost = await this.automations.releaseLostRuns(now);
      if (lost > 0) logger.warn('automation_runs_lost', { runs: lost });
      const { maxRunsPerWorkspace } = this.config.automations;
      for (const due of await this.automations.listDue(now, DUE_PER_TICK, maxRunsPerWorkspace)) {
        const result = await this.claim(due, now);
        if (result.claimed && result.runId) started.push(result.runId);
        // The service is full: every later slot would be refused too; they wait for the next tick.
        if (!result.claimed && result.reason === 'limited' && result.scope === 'service') break;
      }
    } catch (error) {
      logger.warn('automation_tick_failed', { error: error instanceof Error ? error.message : String(error) });
    }
    await this.housekeep(now);
    return started;
  }

  /** The housekeeping, at most once per HOUSEKEEPING_INTERVAL_MS; its failure is logged, the next one tries again. */
  private async housekeep(now: number): Promise<void> {
    if (now - this.lastHousekeeping < HOUSEKEEPING_INTERVAL_MS) return;
    this.lastHousekeeping = now;
    try {
      await this.housekeeper.sweep();
    } catch (error) {
      logger.warn('automation_housekeeping_failed', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private async claim(due: DueAutomation, now: number): Promise<ClaimResult & { runId?: string }> {
    const automation = await this.automations.get(due.workspace, due.automationId);
    if (!automation) return { claimed: false, reason: 'gone' };
    let nextRunTime: number | null;
    let disabledReason: string | undefined;
    try {
      nextRunTime = CronSchedule.of(automation.schedule).nextAfter(now);
      if (nextRunTime === null)
        disabledReason = `The schedule "${automation.schedule.cron}" has no slot after ${new Date(now).toISOString()}`;
    } catch (error) {
      // Stored valid; a zone the runtime no longer knows disables it (with why) rather than firing every tick.
      nextRunTime = null;
      disabledReason = `The schedule cannot be read any more: ${error instanceof Error ? error.message : String(error)}`;
      logger.error('automation_schedule_unusable', {
        workspace: due.workspace,
        automationId: due.automationId,
        error: disabledReason,
      });
    }
    return this.runner.startScheduled(due, { nextRunTime, ...(disabledReason ? { disabledReason } : {}) });
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = null;
        this.schedule(this.config.automations.pollMs);
      });
    }, delayMs);
    this.timer.unref();
  }
}
