/**
 * What became of a human-in-the-loop interrupt: `proposed` when a run stops for a human, then
 * `approved`, `rejected`, `failed` (approved but the graph refused it), `stale` (approved but what it was made
 * against changed: nothing applied) or `superseded` (a new message came first); `answered` / `declined` for a
 * question to the user.
 */
export type HitlOutcome =
  'proposed' | 'approved' | 'rejected' | 'failed' | 'stale' | 'superseded' | 'answered' | 'declined';

/** Told about each interrupt's steps (metrics); AiModule binds it to HitlMetrics under HITL_OBSERVER. */
export interface HitlObserver {
  interrupt(outcome: HitlOutcome): void;
}
