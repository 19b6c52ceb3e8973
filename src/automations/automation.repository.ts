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

/** How many runs may be in progress at once, over every instance sharing the store (AUTOMATION_MAX_RUNS*). */
export interface RunLimits {
  total: number;
  perWorkspace: number;
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
  /** Scheduled: why the schedule fires no more (stored with a null nextRunTime: the automation is then disabled). */
  disabledReason?: string;
  /** Until when the run holds the automation; renewed while it runs. */
  leaseExpiresAt: number;
  limits: RunLimits;
}

export type ClaimResult =
  | { claimed: true; automation: StoredAutomation }
  /**
   * gone: no such automation; not_due: another instance took this slot (or it was changed); busy: a live
   * run holds it; limited: `scope` has as many runs in progress as it may (the slot stays due: it waits).
   */
  | { claimed: false; reason: 'gone' | 'not_due' | 'busy' }
  | { claimed: false; reason: 'limited'; scope: 'service' | 'workspace' };

/** A run's end (or its stop on an interrupt), recorded by recordOutcome. */
export interface RunOutcomeUpdate {
  outcome: Exclude<AutomationRunOutcome, 'running'>;
  /** null while interrupted (the run goes on once resumed). */
  finishedTime: number | null;
  /** Added to the run's usage (a resume adds its own), and its cost to the automation's spend of `spendMonth`. */
  usage: UsageTotals;
  /** The month the usage was spent in, `YYYY-MM` in the automation's time zone (its monthly budget). */
  spendMonth: string;
  error: AutomationRunError | null;
  /** Set when known (the thread is created by the run itself). */
  threadId?: string;
}

/** A run the retention deletes, with what to delete beside it. */
export interface ExpiredRun {
  workspace: string;
  automationId: string;
  runId: string;
  threadId: string | null;
}

/**
 * Automations and their runs per workspace (port; adapters: SQLite, ArangoDB).
 * Every query of the API names the workspace; the scheduler's (listDue, releaseLostRuns, and the
 * maintenance reads) do not. Claims are atomic across instances sharing the store: of several instances
 * claiming the same slot, exactly one wins; one run per automation at a time (a run lease, renewed
 * while it runs); never more runs in progress than the limits allow.
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
  /** Deletes the automation, its runs and its spend (the runs' threads stay). */
  delete(workspace: string, automationId: string): Promise<boolean>;

  /**
   * Enabled automations whose next slot is at or before `now`, of every workspace, earliest first, at
   * most `limit`: never one a live run holds, and of each workspace no more than it may still start
   * (`perWorkspace` less its runs in progress), so that busy automations and full workspaces never
   * keep the others waiting.
   */
  listDue(now: number, limit: number, perWorkspace: number): Promise<DueAutomation[]>;
  /**
   * Atomically: when the automation exists, is (for a scheduled claim) enabled with `expectedNextRunTime`
   * still stored, no live run holds it, and the limits leave room, stores the next slot, the run's hold,
   * and inserts the run (outcome running). A run whose lease expired (its instance went away) is recorded
   * failed ("lost") first.
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
  /**
   * Adds the usage to the run and its cost to the automation's spend of `update.spendMonth`, always (it
   * was spent), and records the outcome unless the run's state forbids it: a run recorded lost (another
   * instance took its automation over) or skipped_budget keeps its outcome. False when the outcome was
   * not written (that, or no such run).
   */
  recordOutcome(workspace: string, runId: string, update: RunOutcomeUpdate): Promise<boolean>;
  /** Records who the run acts as, when it starts. */
  recordActing(workspace: string, runId: string, acting: AutomationRunActing): Promise<void>;
  getRun(workspace: string, runId: string): Promise<AutomationRun | null>;
  findRunByThread(workspace: string, threadId: string): Promise<AutomationRun | null>;
  /** Newest first. */
  listRuns(workspace: string, automationId: string, limit: number): Promise<AutomationRun[]>;
  /** The newest run of each of these automations. */
  latestRuns(workspace: string, automationIds: readonly string[]): Promise<AutomationRun[]>;
  /** What the automation's runs spent in `month` (`YYYY-MM`, its zone): its monthly budget. Pruning never lowers it. */
  monthSpend(workspace: string, automationId: string, month: string): Promise<number>;

  /** The automation's runs waiting on an interrupt, newest first (a new one supersedes the others). */
  interruptedRuns(workspace: string, automationId: string): Promise<AutomationRun[]>;
  /** Runs of every workspace waiting on an interrupt since before `startedBefore`, oldest first, at most `limit`. */
  staleInterruptedRuns(startedBefore: number, limit: number): Promise<AutomationRun[]>;
  /**
   * Runs of every workspace the retention deletes, at most `limit`: ended (or never run) and started
   * before `startedBefore`, or beyond the newest `kept` of their automation. Never a running or interrupted one.
   */
  expiredRuns(startedBefore: number, kept: number, limit: number): Promise<ExpiredRun[]>;
  /** Deletes these runs' records (their spend stays). */
  deleteRuns(workspace: string, runIds: readonly string[]): Promise<number>;
  close?(): Promise<void>;
}
