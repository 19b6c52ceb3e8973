import type { UsageTotals } from '../threads/thread.types';
import type {
  AutomationChanges,
  AutomationRun,
  AutomationRunActing,
  AutomationRunError,
  AutomationRunOutcome,
  StoredAutomation,
} from './automation';

/** A due automation, as the scheduler sees it. */
export interface DueAutomation {
  workspace: string;
  automationId: string;
  nextRunTime: number;
}

/** What claiming a run writes (AutomationRepository.claimRun). */
export interface RunClaim {
  workspace: string;
  automationId: string;
  run: Pick<AutomationRun, 'runId' | 'trigger' | 'slotTime' | 'startedTime'>;
  /** Scheduled: the slot the caller saw due; the claim applies only while it is still the stored one. */
  expectedNextRunTime?: number;
  /** Scheduled: the slot after this one, stored by the claim (null: the schedule never fires again). */
  nextRunTime?: number | null;
  /** Until when the run holds the automation; renewed while it runs. */
  leaseExpiresAt: number;
  /** Runs older than the newest this many are deleted (the history is bounded). */
  runsKept: number;
}

export type ClaimResult =
  | { claimed: true; automation: StoredAutomation }
  /** gone: no such automation; not_due: another instance took this slot (or it was changed); busy: a live run holds it. */
  | { claimed: false; reason: 'gone' | 'not_due' | 'busy' };

/** A run's end (or its stop on an interrupt), recorded by recordOutcome. */
export interface RunOutcomeUpdate {
  outcome: Exclude<AutomationRunOutcome, 'running'>;
  /** null while interrupted (the run goes on once resumed). */
  finishedTime: number | null;
  /** Added to the run's usage (a resume adds its own). */
  usage: UsageTotals;
  error: AutomationRunError | null;
  /** Set when known (the thread is created by the run itself). */
  threadId?: string;
}

/**
 * Automations and their runs per workspace (port; adapters: SQLite, ArangoDB; docs/persistence.md).
 * Every query of the API names the workspace; listDue (the scheduler, over every workspace) is the one
 * that does not. Claims are atomic across instances sharing the store: of several instances claiming
 * the same slot, exactly one wins; one run per automation at a time (a run lease, renewed while it runs).
 */
export interface AutomationRepository {
  insert(automation: StoredAutomation): Promise<void>;
  get(workspace: string, automationId: string): Promise<StoredAutomation | null>;
  /** Oldest first. */
  list(workspace: string): Promise<StoredAutomation[]>;
  count(workspace: string): Promise<number>;
  update(
    workspace: string,
    automationId: string,
    changes: AutomationChanges,
    updatedTime: number,
  ): Promise<StoredAutomation | null>;
  /** Deletes the automation and its runs (their threads stay). */
  delete(workspace: string, automationId: string): Promise<boolean>;

  /** Enabled automations whose next slot is at or before `now`, earliest first, of every workspace. */
  listDue(now: number, limit: number): Promise<DueAutomation[]>;
  /**
   * Atomically: when the automation exists, is (for a scheduled claim) enabled with `expectedNextRunTime`
   * still stored, and no live run holds it, stores the next slot, the run's hold and its start as the
   * last run time, and inserts the run (outcome running). A run whose lease expired (its instance went
   * away) is recorded failed ("lost") first.
   */
  claimRun(claim: RunClaim, now: number): Promise<ClaimResult>;
  /**
   * Runs whose lease expired (their instance went away) are recorded failed ("lost") and let go of their
   * automation, in every workspace (the scheduler's sweep); answers how many.
   */
  releaseLostRuns(now: number): Promise<number>;
  /** Extends the run's hold while it runs; false when it lost it. */
  renewRunLease(workspace: string, automationId: string, runId: string, leaseExpiresAt: number): Promise<boolean>;
  /** The run no longer holds the automation (ended, stopped on an interrupt, or failed). */
  releaseRun(workspace: string, automationId: string, runId: string): Promise<void>;
  recordOutcome(workspace: string, runId: string, update: RunOutcomeUpdate): Promise<void>;
  /** Records who the run acts as, when it starts. */
  recordActing(workspace: string, runId: string, acting: AutomationRunActing): Promise<void>;
  getRun(workspace: string, runId: string): Promise<AutomationRun | null>;
  findRunByThread(workspace: string, threadId: string): Promise<AutomationRun | null>;
  /** Newest first. */
  listRuns(workspace: string, automationId: string, limit: number): Promise<AutomationRun[]>;
  /** The newest run of each of these automations. */
  latestRuns(workspace: string, automationIds: readonly string[]): Promise<AutomationRun[]>;
  /** The cost of the automation's runs started at or after `since` (its monthly budget). */
  costSince(workspace: string, automationId: string, since: number): Promise<number>;
  close?(): Promise<void>;
}
