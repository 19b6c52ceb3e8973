import type { Role } from '../auth/principal';
import type { UsageTotals } from '../threads/thread.types';

/** When an automation runs: a cron expression read in an IANA time zone. */
export interface AutomationSchedule {
  cron: string;
  timezone: string;
}

/** What its creator defines (the POST body of docs/protocol.md §8.4, `enabled` defaulted). */
export interface AutomationDefinition {
  name: string;
  graphKey: string;
  /** The prompt with its placeholders ({{now}}, {{lastRunTime}}, {{period:-1_WEEK}}), resolved when a run starts. */
  prompt: string;
  schedule: AutomationSchedule;
  enabled: boolean;
  maxCostUsdPerRun?: number;
  maxCostUsdPerMonth?: number;
  /** The automation's own provider configuration; absent: the workspace's active one. */
  providerConfigId?: string;
}

/** An automation as stored, with the scheduler's bookkeeping. */
export interface StoredAutomation extends AutomationDefinition {
  automationId: string;
  workspace: string;
  /** The creator: the owner of the runs' threads. */
  userId: string;
  /** The creator's role when the automation was created (a run acts with no more than the creator's current role). */
  userRole: Role;
  /**
   * Who last set its prompt or schedule, with their role then (the creator at creation): a run acts with no more than
   * that role either.
   */
  promptEditor?: AutomationEditor;
  /** The next slot (epoch ms), null while disabled. Moved forward by the claim that starts a run. */
  nextRunTime: number | null;
  /**
   * Why the service disabled it (its schedule became unusable, or fires no more), null otherwise: an
   * automation is never disabled without its state saying why. Cleared by a change of its schedule or `enabled`.
   */
  disabledReason: string | null;
  /** The run holding the automation (one at a time, across instances) and until when its lease lasts. */
  runningRunId: string | null;
  runLeaseExpiresAt: number | null;
  createdTime: number;
  updatedTime: number;
}

/** A person who changed an automation, and the role they had then. */
export interface AutomationEditor {
  userId: string;
  role: Role;
}

/** Who a run acted as: the creator, on whose behalf it ran, with the run's role. */
export interface AutomationRunActing {
  userId: string;
  role: Role;
  onBehalfOf: string;
}

/** A PATCH of the definition: any subset; null removes a budget or the provider configuration. */
export type AutomationPatch = Partial<
  Omit<AutomationDefinition, 'maxCostUsdPerRun' | 'maxCostUsdPerMonth' | 'providerConfigId'>
> & {
  maxCostUsdPerRun?: number | null;
  maxCostUsdPerMonth?: number | null;
  providerConfigId?: string | null;
};

/** What an update of the store changes (undefined: unchanged; null: removed): a patch, the next slot, the editor, the reason it was disabled. */
export interface AutomationChanges extends AutomationPatch {
  nextRunTime?: number | null;
  promptEditor?: AutomationEditor;
  disabledReason?: string | null;
}

/**
 * running → completed | interrupted (→ completed once resumed) | failed; skipped_budget never ran; skipped_too_large
 * stored its question and context but sent nothing upstream (its prompt was over AI_CONFIRM_ABOVE_TOKENS or
 * AI_CONFIRM_ABOVE_COST_USD, which a chat would have asked about).
 */
export type AutomationRunOutcome =
  'running' | 'completed' | 'interrupted' | 'failed' | 'skipped_budget' | 'skipped_too_large';

export interface AutomationRunError {
  /**
   * A protocol error code, or `aborted` (the service stopped it), `lost` (its instance went away),
   * `superseded` (a newer run proposed again: its interrupt was settled, nothing applied), `expired`
   * (its interrupt waited AUTOMATION_INTERRUPT_TTL_DAYS), `budget_unpriced` (a cost budget, and no price for its model).
   */
  code: string;
  message: string;
}

/** One run of an automation (its execution metadata). */
export interface AutomationRun {
  runId: string;
  workspace: string;
  automationId: string;
  /** null when no thread was created (skipped_budget, or a failure before it). */
  threadId: string | null;
  trigger: 'schedule' | 'manual';
  /** The slot a scheduled run was started for. */
  slotTime: number | null;
  startedTime: number;
  finishedTime: number | null;
  outcome: AutomationRunOutcome;
  /** Upstream usage and cost of the run, its resumes included. */
  usage: UsageTotals;
  error: AutomationRunError | null;
  /** Who the run acted as (absent for a run skipped before it started). */
  acting?: AutomationRunActing;
}

/** GET /api/ai/automations/:automationId/runs entries. */
export interface AutomationRunView {
  runId: string;
  threadId: string | null;
  trigger: 'schedule' | 'manual';
  /** The slot a scheduled run was started for. */
  slotTime?: number;
  startedTime: number;
  finishedTime?: number;
  outcome: AutomationRunOutcome;
  usage: UsageTotals;
  error?: AutomationRunError;
  /** Who the run acted as. */
  acting?: AutomationRunActing;
}

/** The Automation of docs/protocol.md §8.4. */
export interface AutomationView extends AutomationDefinition {
  automationId: string;
  createdBy: string;
  createdTime: number;
  updatedTime: number;
  nextRunTime: number | null;
  /** A run of it is in progress (on any instance). */
  running: boolean;
  /** Why the service disabled it, when it did (its schedule became unusable or fires no more). */
  disabledReason?: string;
  lastRun?: AutomationRunView;
}

export function toAutomationRunView(run: AutomationRun): AutomationRunView {
  return {
    runId: run.runId,
    threadId: run.threadId,
    trigger: run.trigger,
    ...(run.slotTime !== null ? { slotTime: run.slotTime } : {}),
    startedTime: run.startedTime,
    ...(run.finishedTime !== null ? { finishedTime: run.finishedTime } : {}),
    outcome: run.outcome,
    usage: run.usage,
    ...(run.error ? { error: run.error } : {}),
    ...(run.acting ? { acting: run.acting } : {}),
  };
}

export function toAutomationView(
  automation: StoredAutomation,
  lastRun: AutomationRun | null,
  now: number,
): AutomationView {
  return {
    automationId: automation.automationId,
    name: automation.name,
    graphKey: automation.graphKey,
    prompt: automation.prompt,
    schedule: { ...automation.schedule },
    enabled: automation.enabled,
    ...(automation.maxCostUsdPerRun !== undefined ? { maxCostUsdPerRun: automation.maxCostUsdPerRun } : {}),
    ...(automation.maxCostUsdPerMonth !== undefined ? { maxCostUsdPerMonth: automation.maxCostUsdPerMonth } : {}),
    ...(automation.providerConfigId !== undefined ? { providerConfigId: automation.providerConfigId } : {}),
    createdBy: automation.userId,
    createdTime: automation.createdTime,
    updatedTime: automation.updatedTime,
    nextRunTime: automation.nextRunTime,
    running: automation.runningRunId !== null && (automation.runLeaseExpiresAt ?? 0) > now,
    ...(automation.disabledReason !== null ? { disabledReason: automation.disabledReason } : {}),
    ...(lastRun ? { lastRun: toAutomationRunView(lastRun) } : {}),
  };
}
