import { Inject, Injectable } from '@nestjs/common';
import type { AutomationRuns, AutomationRunSettings } from '../ai/runs/automation-runs.port';
import type { ThreadRunEnd } from '../ai/runs/thread-runner';
import { ApprovalPendingNotifier } from '../ai/socket/approval-pending.notifier';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { Logger } from '../observability/logger';
import type { ThreadRecord } from '../threads/thread.types';
import { AutomationBudget } from './automation-budget';
import { AutomationRunThreads } from './automation-run.threads';
import { AUTOMATION_CLOCK, AutomationClock } from './automation-clock';
import type { AutomationRepository } from './automation.repository';
import { AUTOMATION_REPOSITORY } from './automation-repository.token';
import { AutomationHousekeeper } from './automation.housekeeper';
import { runOutcomeOf } from './run-outcome';
import { zonedMonth } from './schedule/zoned-calendar';

const logger = new Logger('automations');

/**
 * The automations as the agent sees them (AUTOMATION_RUNS): keeps each automation run's record in step with what
 * people do on its thread, on whichever instance (a resume that answers its interrupt, a chat that continues it):
 * told by the agent when such a run ends (after its usage was recorded, before its answer), it records the outcome
 * and adds the usage, to the run and to the month's spend (a run recorded lost keeps its outcome). When a run stops
 * on an interrupt, the automation's older interrupted runs are superseded and the workspace's editors and admins
 * connected on `/ai` get `ai:approval_pending`. And asked what a resume of the thread keeps of the automation: its
 * provider configuration and its budgets (what the run spent so far counted in). The automation's own run too (told
 * the same way, with its usage even when it failed); AutomationRunner records a run that failed before it had a thread.
 */
@Injectable()
export class AutomationRunRecorder implements AutomationRuns {
  constructor(
    @Inject(AUTOMATION_REPOSITORY) private readonly automations: AutomationRepository,
    private readonly threads: AutomationRunThreads,
    private readonly notifier: ApprovalPendingNotifier,
    private readonly housekeeper: AutomationHousekeeper,
    @Inject(AUTOMATION_CLOCK) private readonly clock: AutomationClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async runEnded(end: ThreadRunEnd): Promise<void> {
    const { thread } = end;
    if (thread.type !== 'automation' || !thread.automationId) return;
    const update = runOutcomeOf(end, this.clock.now());
    if (!update) return;
    const runId =
      this.threads.runOn(thread.threadId) ??
      (await this.automations.findRunByThread(thread.workspace, thread.threadId))?.runId;
    const automation = runId ? await this.automations.get(thread.workspace, thread.automationId) : null;
    if (!runId || !automation) return; // the automation (and its runs) was deleted; the thread stays its creator's
    const written = await this.automations.recordOutcome(thread.workspace, runId, {
      ...update,
      spendMonth: zonedMonth(this.clock.now(), automation.schedule.timezone),
    });
    logger.info('automation_run_recorded', {
      workspace: thread.workspace,
      automationId: thread.automationId,
      runId,
      kind: end.kind,
      outcome: update.outcome,
      ...(written ? {} : { outcomeKept: true }),
    });
    if (end.result?.type === 'interrupt' && written) {
      this.notifier.approvalPending(thread.workspace, {
        threadId: thread.threadId,
        automationId: thread.automationId,
        interrupt: end.result.interrupt,
      });
      // One proposal per automation waits at a time: the newest supersedes the older ones.
      await this.housekeeper.supersede(thread.workspace, thread.automationId, runId).catch((error: unknown) =>
        logger.warn('automation_supersede_failed', {
          workspace: thread.workspace,
          automationId: thread.automationId,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    }
  }

  async settingsOf(thread: ThreadRecord): Promise<AutomationRunSettings | null> {
    if (!thread.automationId) return null;
    const automation = await this.automations.get(thread.workspace, thread.automationId);
    if (!automation) return null;
    const run = await this.automations.findRunByThread(thread.workspace, thread.threadId);
    const budget = await AutomationBudget.of(
      automation,
      this.automations,
      this.clock.now(),
      this.config.locale,
      run?.usage.costUsd ?? 0,
    );
    return { ...(automation.providerConfigId ? { providerConfigId: automation.providerConfigId } : {}), budget };
  }
}
