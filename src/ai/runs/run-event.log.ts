import type { TraceContext } from '../../observability/tracing/gen-ai.tracer';
import type { AiServerToClientEvents } from '../socket/ai-socket.events';

/** The events of a request (every server → client event but `ai:approval_pending`, which belongs to no request). */
export type RunEventName = Exclude<keyof AiServerToClientEvents, 'ai:approval_pending'>;

export interface RunEventLogLimits {
  /** Events kept per request; beyond it the oldest are dropped (a rejoin before them is refused). */
  maxEventsPerRun: number;
  /** How long a finished request's events are kept (AI_REJOIN_GRACE_MS). */
  retentionMs: number;
}

/** Events kept per request: at one coalesced ai:token per 10 ms, 100 s of uninterrupted streaming. */
export const MAX_EVENTS_PER_RUN = 10_000;

/** The terminal events: nothing of the request follows them. */
export const TERMINAL_RUN_EVENTS: ReadonlySet<RunEventName> = new Set(['ai:complete', 'ai:error']);

/**
 * One server → client event of a request as the log keeps it: its `seq` (1, 2, 3, … within the
 * request) and its payload without `_id` and `seq`, which a rejoin sets.
 */
export interface LoggedRunEvent {
  seq: number;
  event: RunEventName;
  payload: Readonly<Record<string, unknown>>;
}

/** Who may rejoin a request: the principal that made it (a thread belongs to its workspace and user). */
export interface RunOwner {
  workspace: string;
  userId: string;
}

/** A thread's latest request, as a rejoin finds it. */
export interface LatestRun {
  runKey: string;
  owner: RunOwner;
  /** The run's trace (its `invoke_agent` span), so a rejoin on another instance continues it; only with tracing on. */
  trace?: TraceContext;
}

/** The writing end of one request's log (one per request, held by its sink). */
export interface RunEventWriter {
  /** Appends the next event; never throws, never waits, never fails the request (a log that cannot be shared stays local). */
  append(event: LoggedRunEvent): void;
  /**
   * The request holds its thread (its lease): it is now the thread's latest request, the one `ai:rejoin` finds, with
   * the trace context of its run when it is traced.
   */
  markLatest(threadId: string, trace?: TraceContext): void;
}

/** Where a follow's events go. */
export interface RunEventListener {
  /** Events in `seq` order, without gap or repetition; the last call holds the terminal event. */
  events(events: LoggedRunEvent[]): void;
  /** The log could not be read any more (Redis lost): no more events will come. */
  lost(): void;
}

export type FollowOutcome =
  /** Events follow (replayed, then live) until the terminal one, or `stop()`. */
  | { kind: 'following'; stop(): void }
  /** The request's events are no longer kept (expired), or it never logged any. */
  | { kind: 'gone' }
  /** Events after `afterSeq` were dropped to keep the log bounded: replaying would leave a gap. */
  | { kind: 'trimmed'; firstKeptSeq: number };

/**
 * The events of running and recently finished requests, so `ai:rejoin` can replay what a client missed
 * and then forward the rest live, with no gap and no duplicate. Bounded in length (the oldest events of
 * a very long request are dropped) and in time (a finished request is kept for AI_REJOIN_GRACE_MS). In
 * memory on one instance; in Redis Streams with REDIS_URL, so a request running on one instance can be
 * rejoined on any other.
 */
export interface RunEventLog {
  /** The log of a new request. */
  open(runKey: string, owner: RunOwner): RunEventWriter;
  /** The thread's latest request, or null when none is kept. */
  latest(threadId: string): Promise<LatestRun | null>;
  /** Calls `listener` with the request's events after `afterSeq`, then with the live ones until its terminal event. */
  follow(runKey: string, afterSeq: number, listener: RunEventListener): Promise<FollowOutcome>;
}
