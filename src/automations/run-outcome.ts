import type { ThreadRunEnd } from '../ai/runs/thread-runner';
import { AppError } from '../errors/app-error';
import type { AutomationRunError } from './automation';
import type { RunOutcomeUpdate } from './automation.repository';

/** The error of a run the service stopped (shutdown, or its lease lost): its text so far is kept in the thread. */
export const ABORTED_RUN_ERROR: AutomationRunError = {
  code: 'aborted',
  message:
    'Stopped before its end (the service shut down, or another instance took the run over); the text so far is kept in its thread',
};

/**
 * What a run on an automation's thread did to the automation run it belongs to:
 * an answer completes it, an interrupt leaves it interrupted (it completes when a resume finishes the
 * thread), a stop or an error fails it. Null when the run changed nothing: a resume refused before it
 * reached the loop (a racing resume won, a viewer, a spent budget) leaves the run as it was.
 */
export function runOutcomeOf(end: ThreadRunEnd, now: number): Omit<RunOutcomeUpdate, 'spendMonth'> | null {
  if (!end.ranLoop && end.kind !== 'automation') return null;
  const base = { usage: end.usage, threadId: end.thread.threadId };
  if (end.result?.type === 'interrupt') return { ...base, outcome: 'interrupted', finishedTime: null, error: null };
  if (end.result?.type === 'message') {
    if (end.result.notSent)
      return {
        ...base,
        outcome: 'skipped_too_large',
        finishedTime: now,
        error: { code: 'too_large', message: end.result.message },
      };
    return end.result.aborted
      ? { ...base, outcome: 'failed', finishedTime: now, error: ABORTED_RUN_ERROR }
      : { ...base, outcome: 'completed', finishedTime: now, error: null };
  }
  return { ...base, outcome: 'failed', finishedTime: now, error: runErrorOf(end.error) };
}

/**
 * A failure as a run records it: the protocol error code and the user-facing text (already safe to
 * show: an upstream's raw message, which may echo a key, never is), `internal` for anything else.
 */
export function runErrorOf(error: unknown): AutomationRunError {
  if (error instanceof AppError) return { code: error.code, message: error.userMessage ?? error.message };
  return { code: 'internal', message: 'Internal error (see the service logs)' };
}
