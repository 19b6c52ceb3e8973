import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/app-config.token';
import { AiEventLogger } from '../../observability/ai-event.logger';
import { Logger } from '../../observability/logger';

/** Why a running generation was stopped before it ended on its own. */
export type RunStopReason = 'interrupt' | 'client_disconnect' | 'shutdown';

/** What the transport knows about a run's progress (its sink), reported when the run is stopped. */
export interface RunProgress {
  readonly threadId: string | null;
  /** Text fragments forwarded to the client so far. */
  readonly tokensStreamed: number;
}

/** One running generation: the handle a transport passes its signal from and ends when the run settles. */
export interface ActiveRun {
  readonly owner: string;
  readonly requestId: string | number;
  /** Handed to ChatService: aborting it cancels the upstream request (the run completes with the partial text). */
  readonly signal: AbortSignal;
  /** Null while nothing stopped it. */
  readonly stopReason: RunStopReason | null;
  stop(reason: RunStopReason): void;
  /** The run settled (terminal answer sent): forget it. Idempotent. */
  end(): void;
}

interface RunEntry extends ActiveRun {
  readonly progress: RunProgress;
  readonly settled: Promise<void>;
}

const logger = new Logger('runs');

/**
 * Every running generation of this instance, keyed by owner (a socket id, or "http") and request id
 * (the socket message's `_id`, or a generated id). The one place per-request state lives, so that
 * "stop request X" (ai:interrupt, a socket that disconnects, shutdown) needs nothing else — and so a
 * later distributed version (stop a run held by another instance) replaces this class only.
 *
 * At shutdown (onModuleDestroy, before ThreadStore releases leases and closes the store) every run
 * is stopped and awaited, so ChatService commits each partial answer and the clients get their
 * `aborted` terminal answer while the sockets are still open.
 */
@Injectable()
export class ActiveRunRegistry implements OnModuleDestroy {
  private readonly runs = new Map<string, Map<string | number, RunEntry>>();
  private readonly events = new AiEventLogger('runs');
  private count = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Registers a run; null when this owner already runs a request with this id. */
  begin(owner: string, requestId: string | number, progress: RunProgress): ActiveRun | null {
    let owned = this.runs.get(owner);
    if (owned?.has(requestId)) return null;
    if (!owned) {
      owned = new Map();
      this.runs.set(owner, owned);
    }
    const controller = new AbortController();
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    let stopReason: RunStopReason | null = null;
    let ended = false;
    const entry: RunEntry = {
      owner,
      requestId,
      progress,
      settled,
      signal: controller.signal,
      get stopReason() {
        return stopReason;
      },
      stop: (reason) => {
        if (ended || stopReason) return;
        stopReason = reason;
        this.logStop(entry, reason);
        controller.abort(reason);
      },
      end: () => {
        if (ended) return;
        ended = true;
        const current = this.runs.get(owner);
        if (current?.get(requestId) === entry) {
          current.delete(requestId);
          this.count--;
          if (current.size === 0) this.runs.delete(owner);
        }
        settle();
      },
    };
    owned.set(requestId, entry);
    this.count++;
    return entry;
  }

  isRunning(owner: string, requestId: string | number): boolean {
    return this.runs.get(owner)?.has(requestId) ?? false;
  }

  /** Stops one run of the owner; false when it is not running (unknown, or already settled). */
  stop(owner: string, requestId: string | number, reason: RunStopReason): boolean {
    const entry = this.runs.get(owner)?.get(requestId);
    if (!entry) return false;
    entry.stop(reason);
    return true;
  }

  /** Stops every run of the owner (a socket that disconnected); returns how many. */
  stopOwner(owner: string, reason: RunStopReason): number {
    const owned = this.runs.get(owner);
    if (!owned) return 0;
    const entries = [...owned.values()];
    for (const entry of entries) entry.stop(reason);
    return entries.length;
  }

  /** Stops every run and resolves once all settled, or after `timeoutMs` (false then). */
  async stopAll(reason: RunStopReason, timeoutMs: number): Promise<boolean> {
    const entries = [...this.runs.values()].flatMap((owned) => [...owned.values()]);
    for (const entry of entries) entry.stop(reason);
    if (entries.length === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([Promise.all(entries.map((entry) => entry.settled)).then(() => true as const), timedOut]);
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

  private logStop(entry: RunEntry, reason: RunStopReason): void {
    const fields = { sessionId: `${entry.owner}/${entry.requestId}`, threadId: entry.progress.threadId ?? undefined, tokensStreamed: entry.progress.tokensStreamed };
    if (reason === 'client_disconnect') this.events.clientDisconnectAbort(fields);
    else logger.info(reason === 'interrupt' ? 'generation_interrupted' : 'generation_stopped_for_shutdown', fields);
  }
}
