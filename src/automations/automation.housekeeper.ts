import { Inject, Injectable, Optional } from '@nestjs/common';
import { supersededResults } from '../ai/interrupts/pending-interrupt.settler';
import type { Principal } from '../auth/principal';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { AppError } from '../errors/app-error';
import { MemoryService } from '../memory/memory.service';
import { Logger } from '../observability/logger';
import { generateMessageId } from '../threads/sortable-id.generator';
import { ThreadService } from '../threads/thread.service';
import { EMPTY_USAGE } from '../threads/thread.types';
import type { AutomationRun, AutomationRunError, StoredAutomation } from './automation';
import { AUTOMATION_CLOCK, AutomationClock } from './automation-clock';
import type { AutomationRepository, ExpiredRun } from './automation.repository';
import { AUTOMATION_REPOSITORY } from './automation-repository.token';
import { zonedMonth } from './schedule/zoned-calendar';

/** Runs kept per automation at most, whatever their age: the oldest beyond are deleted with their threads. */
export const RUNS_KEPT_PER_AUTOMATION = 500;
/** Runs (with their threads) deleted per pass, and interrupts expired per pass: a pass stays short. */
const BATCH = 100;
const DAY_MS = 86_400_000;

const logger = new Logger('automations');

/** What a pass did (logged; answered to tests). */
export interface HousekeepingReport {
  expiredInterrupts: number;
  deletedRuns: number;
  deletedThreads: number;
}

/**
 * Keeps what automations leave behind bounded:
 *  - an interrupted run whose automation stops on a newer interrupt is superseded: its proposal or
 *    question is settled as not applied (every tool call of it gets its result, an assistant line says
 *    why), its run recorded failed / `superseded`, so the approval queue holds one entry per automation;
 *  - an interrupt unanswered for AUTOMATION_INTERRUPT_TTL_DAYS expires the same way (`expired`);
 *  - runs that started more than AUTOMATION_RETENTION_DAYS ago, or beyond the newest
 *    RUNS_KEPT_PER_AUTOMATION of their automation, are deleted with their threads and those threads'
 *    memory (memory first, so a failure leaves a thread to retry, never memory without one).
 * An interrupt a human is answering right now (its thread's lease is held) is left for the next pass.
 * Several instances may run a pass at once: every step is idempotent.
 */
@Injectable()
export class AutomationHousekeeper {
  constructor(
    @Inject(AUTOMATION_REPOSITORY) private readonly automations: AutomationRepository,
    private readonly threads: ThreadService,
    @Inject(AUTOMATION_CLOCK) private readonly clock: AutomationClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly memory?: MemoryService,
  ) {}

  /** The automation's earlier interrupted runs, now that `latestRunId` stopped on an interrupt too. */
  async supersede(workspace: string, automationId: string, latestRunId: string): Promise<number> {
    const automation = await this.automations.get(workspace, automationId);
    if (!automation) return 0;
    let settled = 0;
    for (const run of await this.automations.interruptedRuns(workspace, automationId)) {
      if (run.runId === latestRunId) continue;
      const error = {
        code: 'superseded',
        message: `A newer run (${latestRunId}) stopped on its own proposal or question: this one was not applied`,
      };
      if (await this.settle(automation, run, error)) settled += 1;
    }
    return settled;
  }

  /** One pass of expiry and retention. */
  async sweep(): Promise<HousekeepingReport> {
    const now = this.clock.now();
    const report: HousekeepingReport = { expiredInterrupts: 0, deletedRuns: 0, deletedThreads: 0 };
    const ttlMs = this.config.automations.interruptTtlDays * DAY_MS;
    const owners = new Map<string, StoredAutomation | null>();
    for (const run of await this.automations.staleInterruptedRuns(now - ttlMs, BATCH)) {
      const automation = await this.ownerOf(owners, run.workspace, run.automationId);
      if (!automation) continue;
      const error = {
        code: 'expired',
        message: `Unanswered for ${this.config.automations.interruptTtlDays} day(s) (AUTOMATION_INTERRUPT_TTL_DAYS): not applied`,
      };
      if (await this.settle(automation, run, error, now - ttlMs)) report.expiredInterrupts += 1;
    }
    const retentionMs = this.config.automations.retentionDays * DAY_MS;
    const expired = await this.automations.expiredRuns(now - retentionMs, RUNS_KEPT_PER_AUTOMATION, BATCH);
    const byWorkspace = new Map<string, ExpiredRun[]>();
    for (const run of expired) byWorkspace.set(run.workspace, [...(byWorkspace.get(run.workspace) ?? []), run]);
    for (const [workspace, runs] of byWorkspace) {
      const deletable: string[] = [];
      for (const run of runs) {
        if (run.threadId && !(await this.deleteThread(owners, run, run.threadId))) continue;
        if (run.threadId) report.deletedThreads += 1;
        deletable.push(run.runId);
      }
      report.deletedRuns += await this.automations.deleteRuns(workspace, deletable);
    }
    if (report.expiredInterrupts + report.deletedRuns > 0) logger.info('automation_housekeeping', { ...report });
    return report;
  }

  /**
   * Settles the run's pending interrupt as not applied (when its thread still waits on one raised
   * before `raisedBefore`) and records the run failed with `error`. False when a human holds the
   * thread right now, or the interrupt is newer: left as it is.
   */
  private async settle(
    automation: StoredAutomation,
    run: AutomationRun,
    error: AutomationRunError,
    raisedBefore = Number.POSITIVE_INFINITY,
  ): Promise<boolean> {
    const now = this.clock.now();
    if (run.threadId) {
      const principal = ownerOf(automation);
      let thread;
      try {
        thread = await this.threads.load(principal, run.threadId);
      } catch (failure) {
        if (!(failure instanceof AppError && failure.code === 'not_found')) throw failure;
        thread = null;
      }
      const pending = thread?.pendingInterrupt;
      if (thread && pending) {
        if (pending.createdTime >= raisedBefore) return false;
        let lease;
        try {
          lease = await this.threads.acquireRun(thread.threadId);
        } catch (failure) {
          if (failure instanceof AppError && failure.code === 'thread_busy') return false;
          throw failure;
        }
        try {
          const current = await this.threads.load(principal, thread.threadId);
          if (current.pendingInterrupt?.interrupt.toolCallId !== pending.interrupt.toolCallId) return false;
          await this.threads.commit(current, {
            operationId: `settle:${run.runId}:${pending.interrupt.toolCallId}`,
            append: [
              ...supersededResults(pending, now, this.config.locale),
              {
                id: generateMessageId(now),
                role: 'assistant',
                content: error.message,
                createdTime: now,
              },
            ],
            pendingInterrupt: null,
          });
        } finally {
          await lease.release();
        }
      }
    }
    await this.automations.recordOutcome(run.workspace, run.runId, {
      outcome: 'failed',
      finishedTime: now,
      usage: EMPTY_USAGE,
      spendMonth: zonedMonth(now, automation.schedule.timezone),
      error,
    });
    logger.info('automation_interrupt_settled', {
      workspace: run.workspace,
      automationId: run.automationId,
      runId: run.runId,
      code: error.code,
    });
    return true;
  }

  /** Deletes a run's thread and its memory; false when it must wait (a run holds it). */
  private async deleteThread(
    owners: Map<string, StoredAutomation | null>,
    run: ExpiredRun,
    threadId: string,
  ): Promise<boolean> {
    const automation = await this.ownerOf(owners, run.workspace, run.automationId);
    if (!automation) return false;
    try {
      // With memory: its records first, then the thread (a failure in between leaves the thread to retry).
      if (this.memory) await this.memory.deleteThread(ownerOf(automation), threadId);
      else await this.threads.delete(ownerOf(automation), threadId);
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return true;
      logger.warn('automation_thread_not_deleted', {
        workspace: run.workspace,
        runId: run.runId,
        threadId,
        error: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
    return true;
  }

  private async ownerOf(
    owners: Map<string, StoredAutomation | null>,
    workspace: string,
    automationId: string,
  ): Promise<StoredAutomation | null> {
    const key = JSON.stringify([workspace, automationId]);
    if (!owners.has(key)) owners.set(key, await this.automations.get(workspace, automationId));
    return owners.get(key) ?? null;
  }
}

function ownerOf(automation: StoredAutomation): Principal {
  return { userId: automation.userId, workspace: automation.workspace, role: automation.userRole };
}
