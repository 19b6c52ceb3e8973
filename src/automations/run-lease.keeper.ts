import { Logger } from '../observability/logger';
import type { AutomationClock } from './automation-clock';
import type { AutomationRepository } from './automation.repository';

const logger = new Logger('automations');

/** Why a run lost its hold on its automation: taken over (another instance recorded it lost), or not renewable in time. */
export type RunLeaseLoss = 'taken_over' | 'unrenewable';

export interface HeldRun {
  workspace: string;
  automationId: string;
  runId: string;
}

/**
 * Keeps a run's hold on its automation (one run at a time): renews the lease
 * every third of its time. The run must stop as soon as the hold is not certain any more, before
 * another instance may take the automation over: when the store says another run holds it, and when
 * renewals fail (the store unreachable, or a renewal still pending) so long that the next attempt
 * would come after the lease ran out. `onLost` is called once.
 */
export class RunLeaseKeeper {
  private heldUntil: number;
  private timer: NodeJS.Timeout | null = null;
  private pending: Promise<void> | null = null;
  private lost = false;
  private readonly intervalMs: number;

  constructor(
    private readonly automations: AutomationRepository,
    private readonly run: HeldRun,
    private readonly leaseMs: number,
    private readonly clock: AutomationClock,
    private readonly onLost: (reason: RunLeaseLoss) => void,
  ) {
    this.heldUntil = clock.now() + leaseMs;
    this.intervalMs = Math.max(1, Math.floor(leaseMs / 3));
  }

  start(): void {
    if (this.timer || this.lost) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One renewal (the timer's; exposed for tests). Resolves once it is settled. */
  async tick(): Promise<void> {
    if (this.lost) return;
    if (this.pending) {
      // A renewal that hangs is a renewal that failed: the same deadline applies.
      this.checkDeadline('renewal_pending');
      return;
    }
    this.pending = this.renew().finally(() => (this.pending = null));
    await this.pending;
  }

  private async renew(): Promise<void> {
    const now = this.clock.now();
    const { workspace, automationId, runId } = this.run;
    try {
      if (await this.automations.renewRunLease(workspace, automationId, runId, now + this.leaseMs)) {
        this.heldUntil = now + this.leaseMs;
        return;
      }
      this.lose('taken_over');
    } catch (error) {
      logger.warn('automation_lease_renewal_failed', {
        automationId,
        runId,
        error: error instanceof Error ? error.message : String(error),
      });
      this.checkDeadline('renewal_failed');
    }
  }

  private checkDeadline(cause: string): void {
    if (this.clock.now() + this.intervalMs < this.heldUntil) return;
    logger.warn('automation_lease_unrenewable', {
      automationId: this.run.automationId,
      runId: this.run.runId,
      cause,
      heldUntil: this.heldUntil,
    });
    this.lose('unrenewable');
  }

  private lose(reason: RunLeaseLoss): void {
    if (this.lost) return;
    this.lost = true;
    this.stop();
    this.onLost(reason);
  }
}
