/**
 * What became of a human-in-the-loop interrupt: `proposed` when a run stops for a human, then
 * `approved`, `rejected`, `failed` (approved but it could not be applied: the graph moved on) or
 * `superseded` (a new message came first); `answered` / `declined` for a question to the user.
 */
export type HitlOutcome = 'proposed' | 'approved' | 'rejected' | 'failed' | 'superseded' | 'answered' | 'declined';

/** Told about each interrupt's steps (metrics); AiModule binds it to HitlMetrics under HITL_OBSERVER. */
export interface HitlObserver {
  interrupt(outcome: HitlOutcome): void;
}
