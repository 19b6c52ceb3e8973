import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { Logger } from '../observability/logger';
import { AUTOMATION_CLOCK, AutomationClock } from './automation-clock';
import type { AutomationRepository, DueAutomation } from './automation.repository';
import { AUTOMATION_REPOSITORY } from './automation-repository.token';
import { AutomationRunner } from './automation.runner';
import { CronSchedule } from './schedule/cron-schedule';

/** Due automations claimed per tick (the rest wait for the next tick). */
const DUE_PER_TICK = 50;

const logger = new Logger('automations');

/**
 * Starts the automations that are due (docs/automations.md, "Scheduling"). Every AUTOMATION_POLL_MS it
 * asks the store for the enabled automations whose next slot has come, and claims each: the claim
 * moves the slot to the schedule's first one after now, atomically, so that of several instances
 * polling one store exactly one starts the run, and the slots missed while no instance was up give one
 * run, not one per slot. The timers only decide when to look; the store decides what runs. It also
 * sweeps runs whose instance went away (their lease expired) as lost. AUTOMATIONS_ENABLED=false leaves
 * an instance out of scheduling (its API still works, and its own run-now requests run on it).
 */
@Injectable()
export class AutomationScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;

  constructor(
    @Inject(AUTOMATION_REPOSITORY) private readonly automations: AutomationRepository,
    private readonly runner: AutomationRunner,
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
    try {
      const lost = await this.automations.releaseLostRuns(now);
      if (lost > 0) logger.warn('automation_runs_lost', { runs: lost });
      const started: string[] = [];
      for (const due of await this.automations.listDue(now, DUE_PER_TICK)) {
        const runId = await this.claim(due, now);
        if (runId) started.push(runId);
      }
      return started;
    } catch (error) {
      logger.warn('automation_tick_failed', { error: error instanceof Error ? error.message : String(error) });
      return [];
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private async claim(due: DueAutomation, now: number): Promise<string | null> {
    const automation = await this.automations.get(due.workspace, due.automationId);
    if (!automation) return null;
    let next: number | null;
    try {
      next = CronSchedule.parse(automation.schedule).nextAfter(now);
    } catch (error) {
      // Stored valid; a zone the runtime no longer knows disables it rather than firing every tick.
      logger.error('automation_schedule_unusable', {
        workspace: due.workspace,
        automationId: due.automationId,
        error: error instanceof Error ? error.message : String(error),
      });
      next = null;
    }
    return this.runner.startScheduled(due, next);
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
