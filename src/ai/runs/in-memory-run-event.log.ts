import {
  FollowOutcome,
  LatestRun,
  LoggedRunEvent,
  RunEventListener,
  RunEventLog,
  RunEventLogLimits,
  RunEventWriter,
  RunOwner,
  TERMINAL_RUN_EVENTS,
} from './run-event.log';

/** Finished requests kept at most in memory, whatever their age (the oldest go first). */
const MAX_FINISHED_RUNS = 2_000;

interface MemoryRun {
  readonly events: LoggedRunEvent[];
  finished: boolean;
  readonly listeners: Set<RunEventListener>;
}

/**
 * The request event log of one instance (no REDIS_URL, or Redis down when the request started): the
 * payload objects the sink sends are kept as they are (no copy, no serialization), so logging costs an
 * array push per event. A rejoin on this instance replays and follows them; another instance cannot see
 * them. Finished requests are dropped after `retentionMs` (swept when a request starts) and beyond
 * MAX_FINISHED_RUNS; a thread's pointer goes with its request.
 */
export class InMemoryRunEventLog implements RunEventLog {
  private readonly runs = new Map<string, MemoryRun>();
  private readonly latestOfThread = new Map<string, LatestRun>();
  /** Finished requests, oldest first, with the time they may be dropped. */
  private readonly finishedQueue: Array<{ runKey: string; threadId: string | null; dropAt: number }> = [];
  private readonly threadOfRun = new Map<string, string>();

  constructor(
    private readonly limits: RunEventLogLimits,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Requests kept (running and finished). */
  get size(): number {
    return this.runs.size;
  }

  /** Whether this log holds the request (a composite log asks before following). */
  has(runKey: string): boolean {
    return this.runs.has(runKey);
  }

  open(runKey: string, owner: RunOwner): RunEventWriter {
    this.sweep();
    const run: MemoryRun = { events: [], finished: false, listeners: new Set() };
    this.runs.set(runKey, run);
    return {
      append: (event) => this.append(runKey, run, event),
      markLatest: (threadId, trace) => {
        if (this.runs.get(runKey) !== run) return;
        this.latestOfThread.set(threadId, { runKey, owner, ...(trace ? { trace } : {}) });
        this.threadOfRun.set(runKey, threadId);
      },
    };
  }

  /**
   * Forgets a request at once (a composite log's local copy of a request whose shared log is complete); a
   * thread whose latest request it was has none here any more.
   */
  discard(runKey: string): void {
    if (!this.runs.delete(runKey)) return;
    // It finished moments ago: its place in the queue is at (or near) the end.
    for (let index = this.finishedQueue.length - 1; index >= 0; index--) {
      if (this.finishedQueue[index].runKey !== runKey) continue;
      this.finishedQueue.splice(index, 1);
      break;
    }
    const threadId = this.threadOfRun.get(runKey);
    this.threadOfRun.delete(runKey);
    if (threadId !== undefined && this.latestOfThread.get(threadId)?.runKey === runKey)
      this.latestOfThread.delete(threadId);
  }

  async latest(threadId: string): Promise<LatestRun | null> {
    return this.latestOfThread.get(threadId) ?? null;
  }

  async follow(runKey: string, afterSeq: number, listener: RunEventListener): Promise<FollowOutcome> {
    const run = this.runs.get(runKey);
    if (!run) return { kind: 'gone' };
    const firstKept = run.events[0]?.seq ?? 1;
    if (firstKept > afterSeq + 1) return { kind: 'trimmed', firstKeptSeq: firstKept };
    const replay = run.events.filter((event) => event.seq > afterSeq);
    if (replay.length > 0) listener.events(replay);
    if (run.finished) return { kind: 'following', stop: () => undefined };
    run.listeners.add(listener);
    return { kind: 'following', stop: () => run.listeners.delete(listener) };
  }

  private append(runKey: string, run: MemoryRun, event: LoggedRunEvent): void {
    if (run.finished) return;
    run.events.push(event);
    // A tenth at once, so a request past the limit does not shift the whole array per event.
    if (run.events.length > this.limits.maxEventsPerRun)
      run.events.splice(0, run.events.length - Math.floor(this.limits.maxEventsPerRun * 0.9));
    for (const listener of [...run.listeners]) listener.events([event]);
    if (!TERMINAL_RUN_EVENTS.has(event.event)) return;
    run.finished = true;
    run.listeners.clear();
    this.finishedQueue.push({
      runKey,
      threadId: this.threadOfRun.get(runKey) ?? null,
      dropAt: this.clock() + this.limits.retentionMs,
    });
  }

  /** Drops the finished requests whose retention is over, and the oldest beyond MAX_FINISHED_RUNS. */
  private sweep(): void {
    const now = this.clock();
    while (
      this.finishedQueue.length > 0 &&
      (this.finishedQueue[0].dropAt <= now || this.finishedQueue.length > MAX_FINISHED_RUNS)
    ) {
      const { runKey, threadId } = this.finishedQueue.shift() as (typeof this.finishedQueue)[number];
      this.runs.delete(runKey);
      this.threadOfRun.delete(runKey);
      if (threadId !== null && this.latestOfThread.get(threadId)?.runKey === runKey)
        this.latestOfThread.delete(threadId);
    }
  }
}
