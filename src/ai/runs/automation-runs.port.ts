import type { ThreadRecord } from '../../threads/thread.types';
import type { RunBudget } from '../agent/agent-run';
import type { ThreadRunEnd } from './thread-runner';

/** What a later run on an automation's thread (the resume of its interrupt) keeps of the automation. */
export interface AutomationRunSettings {
  /** The automation's own provider configuration; absent: the workspace's active one. */
  providerConfigId?: string;
  /** The automation's per-run and monthly budgets, checked before every upstream call. */
  budget?: RunBudget;
}

/**
 * The automations, as the agent needs them (implemented by src/automations, injected under AUTOMATION_RUNS, absent
 * when no automation module runs): told how each run on an automation's thread ended (its run record: outcome,
 * usage), and asked what a resume of such a thread keeps. Calls from the agent go down this port; the automations
 * call the agent's use cases, never the other way round.
 */
export interface AutomationRuns {
  /** A run on an automation's thread ended (usage recorded, lease released, before its answer). Must not throw. */
  runEnded(end: ThreadRunEnd): Promise<void>;
  /** The settings a resume of the thread's interrupt runs with; null when its automation is gone. */
  settingsOf(thread: ThreadRecord): Promise<AutomationRunSettings | null>;
}

export const AUTOMATION_RUNS = Symbol('AUTOMATION_RUNS');
