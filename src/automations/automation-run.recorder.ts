import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ChatService } from '../ai/chat.service';
import type { ThreadRunEnd } from '../ai/runs/thread-run.skeleton';
import { ApprovalPendingNotifier } from '../ai/socket/approval-pending.notifier';
import { Logger } from '../observability/logger';
import { AUTOMATION_CLOCK, AutomationClock } from './automation-clock';
import type { AutomationRepository } from './automation.repository';
import { AUTOMATION_REPOSITORY } from './automation-repository.token';
import { AutomationRunner } from './automation.runner';
import { runOutcomeOf } from './run-outcome';

const logger = new Logger('automations');

/**
 * Keeps each automation run's record (docs/automations.md) in step with its thread, whatever runs on
 * it and on whichever instance: the run itself, a resume that answers its interrupt, a chat that
 * continues it. Told by ChatService when each run ends (after its usage was recorded, before its
 * answer), it records the outcome and adds the usage; when a run stops on an interrupt, the
 * workspace's editors and admins connected on `/ai` get `ai:approval_pending`.
 */
@Injectable()
export class AutomationRunRecorder implements OnModuleInit {
  constructor(
    private readonly chat: ChatService,
    @Inject(AUTOMATION_REPOSITORY) private readonly automations: AutomationRepository,
    private readonly runner: AutomationRunner,
    private readonly notifier: ApprovalPendingNotifier,
    @Inject(AUTOMATION_CLOCK) private readonly clock: AutomationClock,
  ) {}

  onModuleInit(): void {
    this.chat.observeRuns((end) => this.record(end));
  }

  async record(end: ThreadRunEnd): Promise<void> {
    const { thread } = end;
    if (thread.type !== 'automation' || !thread.automationId) return;
    const update = runOutcomeOf(end, this.clock.now());
    if (!update) return;
    const runId =
      this.runner.runOnThread(thread.threadId) ??
      (await this.automations.findRunByThread(thread.workspace, thread.threadId))?.runId;
    if (!runId) return; // the automation (and its runs) was deleted; the thread stays its creator's
    await this.automations.recordOutcome(thread.workspace, runId, update);
    logger.info('automation_run_recorded', {
      workspace: thread.workspace,
      automationId: thread.automationId,
      runId,
      kind: end.kind,
      outcome: update.outcome,
    });
    if (end.result?.type === 'interrupt') {
      this.notifier.approvalPending(thread.workspace, {
        threadId: thread.threadId,
        automationId: thread.automationId,
        interrupt: end.result.interrupt,
      });
    }
  }
}
