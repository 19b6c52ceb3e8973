import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/app-config.token';
import { AiEventLogger } from '../../observability/ai-event.logger';
import { Logger } from '../../observability/logger';
import { generateSortableId } from '../../threads/sortable-id.generator';

/**
 * Why a running generation was stopped before it ended on its own: `superseded` and `rollback` by a message sent to
 * its thread with multitaskStrategy `interrupt` or `rollback` (the run discards its turn on `rollback`).
 */
export type GenerationStopReason = 'interrupt' | 'client_disconnect' | 'shutdown' | 'superseded' | 'rollback';

/** Why the run holding a thread is stopped by a message sent to that thread. */
export type ThreadStopReason = Extract<GenerationStopReason, 'superseded' | 'rollback'>;

/** What the transport knows about a run's progress (its sink), reported when the run is stopped. */
export interface GenerationProgress {
  readonly threadId: string | null;
  /** The thread whose lease the run took (AgentEventSink.leased): a stop by thread finds it by this. */
  readonly leasedThreadId?: string | null;
  /** Text fragments forwarded to the client so far. */
  readonly tokensStreamed: number;
}

/** Told of each run that ended after holding a thread's lease (the thread is free for the next one). */
export type RunEndedListener = (threadId: string) => void;

/** One running generation: the handle a transport passes its signal from and ends when the run settles. */
export interface ActiveRun {
  readonly owner: string;
  readonly requestId: string | number;
  /** Unique across instances: names the run in its event log and in stop and watch messages between instances. */
  readonly runKey: string;
  /** Handed to the use case: aborting it cancels the upstream request (the run completes with the partial text). */
  readonly signal: AbortSignal;
  /** Null while nothing stopped it. */
  readonly stopReason: GenerationStopReason | null;
  stop(reason: GenerationStopReason): void;
  /** The run settled (terminal answer sent): forget it. Idempotent. */
  end(): void;
}

interface RunEntry extends ActiveRun {
  readonly progress: GenerationProgress;
  readonly settled: Promise<void>;
  /** The sockets (any instance) receiving the run's events: its own socket, and those that rejoined it. */
  readonly watchers: Set<string>;
  /** Watchers of other instances: each expires unless renewed (its instance may have died without a word). */
  readonly expiries: Map<string, NodeJS.Timeout>;
  /** AI_DISCONNECT_POLICY=continue: the run stops when this fires, unless a watcher comes back first. */
  graceTimer: NodeJS.Timeout | null;
}

const logger = new Logger('runs');

/**
 * Every running generation of this instance, keyed by owner (a socket id, or "http") and request id
 * (the socket message's `_id`, or a generated id), and by run key. The one place per-request state
 * lives, so that "stop request X" (ai:interrupt, a socket that disconnects, shutdown, a stop sent by
 * another instance for a run key) needs nothing else.
 *
 * Watchers: a socket run is watched by its socket and by every socket that
 * rejoined it, on any instance. When the last watcher leaves, AI_DISCONNECT_POLICY decides: `abort`
 * stops the run at once, `continue` lets it run for AI_REJOIN_GRACE_MS and stops
 * it then, unless a rejoin brought a watcher back. A watcher of another instance is a lease: it leaves
 * on its own when not renewed within its time to live (RunControl renews them), so an instance that dies
 * with a rejoined socket does not keep the run alive forever.
 *
 * At shutdown (onModuleDestroy, before ThreadService releases leases and closes the store) every run
 * is stopped and awaited, so each run commits its partial answer and the clients get their
 * `aborted` terminal answer while the sockets are still open.
 */
@Injectable()
export class ActiveRunRegistry implements OnModuleDestroy {
  private readonly runs = new Map<string, Map<string | number, RunEntry>>();
  private readonly byKey = new Map<string, RunEntry>();
  /** watcher → the runs it watches. */
  private readonly watching = new Map<string, Set<RunEntry>>();
  private readonly events = new AiEventLogger('runs');
  private readonly endedListeners = new Set<RunEndedListener>();
  private count = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Registers a run (watched by its owner); null when this owner already runs a request with this id. */
  begin(
    owner: string,
    requestId: string | number,
    progress: GenerationProgress,
    runKey = generateSortableId('run_'),
  ): ActiveRun | null {
    let owned = this.runs.get(owner);
    if (owned?.has(requestId)) return null;
    if (!owned) {
      owned = new Map();
      this.runs.set(owner, owned);
    }
    const controller = new AbortController();
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    let stopReason: GenerationStopReason | null = null;
    let ended = false;
    const entry: RunEntry = {
      owner,
      requestId,
      runKey,
      progress,
      settled,
      watchers: new Set(),
      expiries: new Map(),
      graceTimer: null,
      signal: controller.signal,
      get stopReason() {
        return stopReason;
      },
      stop: (reason) => {
        if (ended || stopReason) return;
        stopReason = reason;
        this.cancelGrace(entry);
        this.logStop(entry, reason);
        controller.abort(reason);
      },
      end: () => {
        if (ended) return;
        ended = true;
        this.cancelGrace(entry);
        const current = this.runs.get(owner);
        if (current?.get(requestId) === entry) {
          current.delete(requestId);
          this.count--;
          if (current.size === 0) this.runs.delete(owner);
        }
        if (this.byKey.get(runKey) === entry) this.byKey.delete(runKey);
        for (const watcher of [...entry.watchers]) this.unwatch(watcher, entry);
        settle();
        const threadId = progress.leasedThreadId;
        if (threadId) for (const listener of [...this.endedListeners]) listener(threadId);
      },
    };
    owned.set(requestId, entry);
    this.byKey.set(runKey, entry);
    this.count++;
    this.addWatcher(entry, owner);
    return entry;
  }

  isRunning(owner: string, requestId: string | number): boolean {
    return this.runs.get(owner)?.has(requestId) ?? false;
  }

  /** Stops one run of the owner; false when it is not running (unknown, or already settled). */
  stop(owner: string, requestId: string | number, reason: GenerationStopReason): boolean {
    const entry = this.runs.get(owner)?.get(requestId);
    if (!entry) return false;
    entry.stop(reason);
    return true;
  }

  /** Stops the run with this key (a stop sent by another instance, a lost log); false when it does not run here. */
  stopRun(runKey: string, reason: GenerationStopReason): boolean {
    const entry = this.byKey.get(runKey);
    if (!entry) return false;
    entry.stop(reason);
    return true;
  }

  /**
   * Stops the run holding this thread's lease on this instance (a message sent with multitaskStrategy `interrupt` or
   * `rollback`: ThreadTurnScheduler); false when none does here.
   */
  stopThread(threadId: string, reason: ThreadStopReason): boolean {
    let stopped = false;
    for (const entry of this.byKey.values()) {
      if (entry.progress.leasedThreadId !== threadId || entry.stopReason) continue;
      entry.stop(reason);
      stopped = true;
    }
    return stopped;
  }

  /** Calls `listener` whenever a run of this instance that held a thread's lease ends. Returns the unsubscribe. */
  onRunEnded(listener: RunEndedListener): () => void {
    this.endedListeners.add(listener);
    return () => this.endedListeners.delete(listener);
  }

  /**
   * A socket rejoined the run (on any instance): it watches it now; false when the run does not run here.
   * With `ttlMs` (a socket of another instance) it stops watching after that long unless watched again.
   */
  watch(runKey: string, watcher: string, ttlMs?: number): boolean {
    const entry = this.byKey.get(runKey);
    if (!entry) return false;
    this.cancelGrace(entry);
    this.addWatcher(entry, watcher);
    clearTimeout(entry.expiries.get(watcher));
    entry.expiries.delete(watcher);
    if (ttlMs !== undefined) {
      const expiry = setTimeout(() => {
        entry.expiries.delete(watcher);
        logger.info('run_watcher_expired', { sessionId: `${entry.owner}/${entry.requestId}`, ttlMs });
        this.leaveRun(entry, watcher);
      }, ttlMs);
      expiry.unref();
      entry.expiries.set(watcher, expiry);
    }
    return true;
  }

  /** The socket stopped watching the run (it disconnected on another instance); false when the run does not run here. */
  unwatchRun(runKey: string, watcher: string): boolean {
    const entry = this.byKey.get(runKey);
    if (!entry) return false;
    this.leaveRun(entry, watcher);
    return true;
  }

  /**
   * A socket disconnected: it watches nothing any more. Each run left without a watcher is stopped at
   * once (AI_DISCONNECT_POLICY=abort) or after AI_REJOIN_GRACE_MS (continue). Returns how many runs it watched.
   */
  leave(watcher: string): number {
    const entries = [...(this.watching.get(watcher) ?? [])];
    for (const entry of entries) this.leaveRun(entry, watcher);
    return entries.length;
  }

  /** Stops every run and resolves once all settled, or after `timeoutMs` (false then). */
  async stopAll(reason: GenerationStopReason, timeoutMs: number): Promise<boolean> {
    const entries = [...this.runs.values()].flatMap((owned) => [...owned.values()]);
    for (const entry of entries) entry.stop(reason);
    if (entries.length === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([
        Promise.all(entries.map((entry) => entry.settled)).then(() => true as const),
        timedOut,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs in progress on this instance. */
  get size(): number {
    return this.count;
  }

  async onModuleDestroy(): Promise<void> {
    const running = this.count;
    if (running === 0) return;
    const settled = await this.stopAll('shutdown', this.config.server.shutdownTimeoutMs);
    logger[settled ? 'info' : 'warn']('runs_stopped_for_shutdown', { runs: running, settled });
  }

  private addWatcher(entry: RunEntry, watcher: string): void {
    entry.watchers.add(watcher);
    let watched = this.watching.get(watcher);
    if (!watched) {
      watched = new Set();
      this.watching.set(watcher, watched);
    }
    watched.add(entry);
  }

  private unwatch(watcher: string, entry: RunEntry): void {
    entry.watchers.delete(watcher);
    clearTimeout(entry.expiries.get(watcher));
    entry.expiries.delete(watcher);
    const watched = this.watching.get(watcher);
    if (!watched) return;
    watched.delete(entry);
    if (watched.size === 0) this.watching.delete(watcher);
  }

  private leaveRun(entry: RunEntry, watcher: string): void {
    if (!entry.watchers.has(watcher)) return;
    this.unwatch(watcher, entry);
    if (entry.watchers.size > 0 || entry.stopReason) return;
    const { disconnectPolicy, graceMs } = this.config.rejoin;
    if (disconnectPolicy === 'abort') {
      entry.stop('client_disconnect');
      return;
    }
    if (entry.graceTimer) return;
    logger.info('generation_awaiting_rejoin', {
      sessionId: `${entry.owner}/${entry.requestId}`,
      threadId: entry.progress.threadId ?? undefined,
      graceMs,
    });
    entry.graceTimer = setTimeout(() => entry.stop('client_disconnect'), graceMs);
    entry.graceTimer.unref();
  }

  private cancelGrace(entry: RunEntry): void {
    if (!entry.graceTimer) return;
    clearTimeout(entry.graceTimer);
    entry.graceTimer = null;
  }

  private logStop(entry: RunEntry, reason: GenerationStopReason): void {
    const fields = {
      sessionId: `${entry.owner}/${entry.requestId}`,
      threadId: entry.progress.threadId ?? undefined,
      tokensStreamed: entry.progress.tokensStreamed,
    };
    if (reason === 'client_disconnect') this.events.clientDisconnectAbort(fields);
    else logger.info(STOP_EVENTS[reason], fields);
  }
}

/** The log line of a generation stopped for each reason but a client's disconnect (an AI event of its own). */
const STOP_EVENTS: Record<Exclude<GenerationStopReason, 'client_disconnect'>, string> = {
  interrupt: 'generation_interrupted',
  shutdown: 'generation_stopped_for_shutdown',
  superseded: 'generation_superseded',
  rollback: 'generation_rolled_back',
};
