import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Principal } from '../../auth/principal';
import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';
import { ThreadRunLease } from '../../threads/thread-run.lease';
import { ThreadRoundCommit, ThreadService } from '../../threads/thread.service';
import { ThreadRecord, UsageTotals } from '../../threads/thread.types';
import { AgentEventSink } from '../agent/agent-event.sink';
import { AgentResult } from '../agent/agent-result';
import { AgentRunStats, StreamPacer } from '../agent/agent-run';
import { UsageAccumulator } from '../agent/usage.accumulator';
import { AgentRunObserver, RunKind } from './agent-run.observer';
import { RoundCommitReceipt, RoundCommitReplayer } from './round-commit.replayer';
import { RunSchedulingState } from './run-scheduling.metrics';
import { RunSetupGate, RunSetupSlot } from './run-setup.gate';
import { SetupFirstScheduling } from './setup-first.scheduling';
import { TurnBudget } from './turn-budget';

export type { RunKind } from './agent-run.observer';

/** How a run on a thread ended, for ThreadRunObserver (its result, or what it threw), with its usage. */
export interface ThreadRunEnd {
  kind: RunKind;
  thread: ThreadRecord;
  /**
   * The run got past its setup into the loop (handOver). A resume refused before it (no pending
   * interrupt any more: a racing resume won; a viewer; a spent budget) changed nothing on the thread.
   */
  ranLoop: boolean;
  result?: AgentResult;
  error?: unknown;
  usage: UsageTotals;
}

/**
 * Told when each run ends, after its usage was recorded and its lease released, before its terminal
 * answer (so what it records is there when the client sees the answer). Automations keep their runs'
 * outcomes this way (docs/automations.md). Must not throw; a failure is logged and the run goes on.
 */
export type ThreadRunObserver = (end: ThreadRunEnd) => Promise<void>;

/** What a run's body gets from the skeleton, once its thread is known and its lease held. */
export interface ThreadRun {
  /** The upstream usage of this run: recorded on the thread whatever happens. */
  readonly usage: UsageAccumulator;
  /** Aborts with the request (client stop, disconnect, shutdown) or when the thread's lease is lost. */
  readonly signal: AbortSignal;
  /** Lets timers and sockets run before the setup goes on (the setup slot is kept). */
  pause(): Promise<void>;
  /** The setup is over: the next waiting run may start its own, and what follows (the upstream request) gets a turn of its own. */
  handOver(): Promise<void>;
  /**
   * The pacer of one upstream call's stream: it gives way to runs waiting for their setup
   * (SetupFirstScheduling), and relays within the streams' share of each turn (TurnBudget).
   */
  streamPacer(): StreamPacer;
  /**
   * Commits a round of the run: a revision conflict is re-read and replayed (RoundCommitReplayer),
   * a lease held elsewhere is thread_busy at once.
   */
  commit(thread: ThreadRecord, round: ThreadRoundCommit): Promise<RoundCommitReceipt>;
}

/** The start of a run: at least the thread, as loaded before its lease. */
export interface RunStart {
  thread: ThreadRecord;
  /** The thread's run lease when the start took it already (a thread created for the run: ThreadService.createForRun). */
  lease?: ThreadRunLease;
}

/** What a run's body ends with: the answer, and how the run went (its log line, the metrics). */
export interface RunOutcome {
  result: AgentResult;
  stats: AgentRunStats;
}

/** Told of each run's life: background work that yields to runs (conversation memory, docs/memory.md). */
export interface ThreadRunLifecycle {
  /** A run began (before its setup slot). */
  started(): void;
  /** The run holds the thread's lease (its recall should see the thread's earlier turns). */
  leased(principal: Principal, threadId: string): void;
  /**
   * The run is over, whatever its outcome (once per `started`, after its terminal event). `threadId`
   * is the thread it held the lease of (it may have new rounds), null when it never got one.
   */
  settled(principal: Principal, threadId: string | null): void;
}

export interface ThreadRunSkeletonOptions {
  /** Longest a run's stream gives way, per upstream call, to runs waiting for their setup (SetupFirstScheduling; 0: never). */
  setupFirstMaxMs?: number;
  /** Runs waiting for their setup beyond which running streams give way (SetupFirstScheduling). */
  setupFirstMinWaiting?: number;
  /** Time per turn of the event loop after which no more streams start relaying (TurnBudget; 0: no limit). */
  streamTurnBudgetMs?: number;
}

export interface RunRequest {
  principal: Principal;
  sink: AgentEventSink;
  signal: AbortSignal;
  /** Called when the run cannot take its thread's lease, right before thread_busy is thrown. */
  refused?: (threadId: string) => void;
}

/**
 * The skeleton every run of the agent shares (chat, resume, automation): admission into the setup
 * (RunSetupGate, first come first served, never refused), the thread's run lease (one run per thread,
 * on any instance), the commit path of its rounds (replayed after a revision conflict), usage recorded
 * in every case, one log line for its end (with why it stopped) and the run metrics, the observers
 * told how it ended (ThreadRunObserver), and `sink.complete` with the result AFTER the lease was
 * released (a client may resume the moment it sees an interrupt). Failures are logged and thrown as
 * they are; `complete` is then not called.
 */
export class ThreadRunSkeleton {
  private readonly setupGate = new RunSetupGate();
  private readonly setupFirst: SetupFirstScheduling;
  private readonly turnBudget: TurnBudget;
  private readonly commits: RoundCommitReplayer;
  private readonly observers: ThreadRunObserver[] = [];

  constructor(
    private readonly threads: ThreadService,
    private readonly logger: Logger,
    private readonly observer?: AgentRunObserver,
    private readonly lifecycle?: ThreadRunLifecycle,
    options: ThreadRunSkeletonOptions = {},
  ) {
    this.commits = new RoundCommitReplayer(threads, { observer });
    this.setupFirst = new SetupFirstScheduling(this.setupGate, {
      maxMs: options.setupFirstMaxMs,
      minWaiting: options.setupFirstMinWaiting,
    });
    this.turnBudget = new TurnBudget(options.streamTurnBudgetMs);
  }

  /**
   * Before each chunk: a stream giving way to waiting setups goes on in a turn of its own (a few per
   * turn); any other waits, when this turn's share is spent, for a turn with time left.
   */
  private streamPacer(signal: AbortSignal): StreamPacer {
    const setupFirst = this.setupFirst.pacer(signal);
    const turn = this.turnBudget.pacer();
    return { beforeChunk: () => setupFirst.beforeChunk() ?? turn.beforeChunk() };
  }

  /** Runs waiting for their setup, running streams giving way to them, and streams put off (RunSchedulingMetrics). */
  schedulingState(): RunSchedulingState {
    return {
      waitingForSetup: this.setupGate.queued,
      streamsGivingWay: this.setupFirst.streamsGivingWay,
      streamsPutOff: this.turnBudget.waiting,
    };
  }

  observe(observer: ThreadRunObserver): void {
    this.observers.push(observer);
  }

  /**
   * `start` finds the thread (and whatever else the body needs) inside the setup slot, before the
   * lease (or with it, when it created the thread for the run); `body` runs under the lease and
   * returns the result and how the run went.
   */
  async run<Start extends RunStart>(
    kind: RunKind,
    request: RunRequest,
    start: () => Promise<Start>,
    body: (started: Start, run: ThreadRun) => Promise<RunOutcome>,
  ): Promise<AgentResult> {
    this.lifecycle?.started();
    const leased: { threadId: string | null } = { threadId: null };
    try {
      return await this.runToEnd(kind, request, start, body, leased);
    } finally {
      this.lifecycle?.settled(request.principal, leased.threadId);
    }
  }

  private async runToEnd<Start extends RunStart>(
    kind: RunKind,
    request: RunRequest,
    start: () => Promise<Start>,
    body: (started: Start, run: ThreadRun) => Promise<RunOutcome>,
    leased: { threadId: string | null },
  ): Promise<AgentResult> {
    const startedAt = performance.now();
    const setup = await this.setupGate.enter();
    let started: Start;
    let lease: ThreadRunLease;
    try {
      started = await start();
    } catch (error) {
      setup.release();
      throw error;
    }
    try {
      lease = started.lease ?? (await this.threads.acquireRun(started.thread.threadId));
    } catch (error) {
      setup.release();
      request.refused?.(started.thread.threadId);
      throw error;
    }
    const threadId = started.thread.threadId;
    leased.threadId = threadId;
    this.lifecycle?.leased(request.principal, threadId);
    request.sink.leased?.(threadId);
    const usage = new UsageAccumulator();
    const signal = AbortSignal.any([request.signal, lease.signal]);
    const hold = { principal: request.principal, confirmLease: () => lease.renew() };
    let ranLoop = false;
    let outcome: RunOutcome | { error: unknown };
    try {
      outcome = await body(started, {
        usage,
        signal,
        pause: () => setup.pause(),
        handOver: () => {
          ranLoop = true;
          return handOver(setup);
        },
        streamPacer: () => this.streamPacer(signal),
        commit: (thread, round) => this.commits.commit(thread, round, hold),
      });
    } catch (error) {
      this.logFailure(kind, threadId, error, startedAt);
      this.observer?.runEnded({ kind, stopReason: 'error', rounds: 0, toolCalls: 0, toolResults: 0 });
      outcome = { error };
    } finally {
      setup.release();
      await this.endHold(request.principal, threadId, usage, lease);
    }
    const ending = { kind, thread: started.thread, ranLoop, usage: usage.totals() };
    if ('error' in outcome) {
      await this.tellObservers({ ...ending, error: outcome.error });
      throw outcome.error;
    }
    await this.tellObservers({ ...ending, result: outcome.result });
    const { result, stats } = outcome;
    this.logDone(kind, outcome, startedAt);
    this.observer?.runEnded({
      kind,
      stopReason: stats.stopReason,
      rounds: stats.rounds,
      toolCalls: result.toolCalls.length,
      toolResults: stats.toolResults,
    });
    request.sink.complete(result);
    return result;
  }

  private async tellObservers(end: ThreadRunEnd): Promise<void> {
    for (const observer of this.observers) {
      try {
        await observer(end);
      } catch (error) {
        this.logger.error('run_observer_failed', { threadId: end.thread.threadId, error: describe(error) });
      }
    }
  }

  /**
   * The run's usage recorded and its lease released, in one write (ThreadRunLease.release); when that
   * write fails, the usage is recorded on its own (the lease then expires).
   */
  private async endHold(
    principal: Principal,
    threadId: string,
    usage: UsageAccumulator,
    lease: ThreadRunLease,
  ): Promise<void> {
    if (usage.isEmpty) {
      await lease.release();
      return;
    }
    if (!(await lease.release({ workspace: principal.workspace, usage: usage.totals(), now: Date.now() }))) {
      await this.recordUsage(principal, threadId, usage);
    }
  }

  /** Never lost and never fatal: a failure to record is logged, the answer still goes out. */
  private async recordUsage(principal: Principal, threadId: string, usage: UsageAccumulator): Promise<void> {
    if (usage.isEmpty) return;
    try {
      await this.threads.addUsage(principal.workspace, threadId, usage.totals());
    } catch (error) {
      this.logger.error('usage_record_failed', { threadId, workspace: principal.workspace, error: describe(error) });
    }
  }

  private logDone(kind: RunKind, { result, stats }: RunOutcome, startedAt: number): void {
    this.logger.info('agent_run_done', {
      kind,
      threadId: result.threadId,
      outcome:
        result.type === 'interrupt' ? 'interrupt' : result.type === 'message' && result.aborted ? 'aborted' : 'message',
      stopReason: stats.stopReason,
      rounds: stats.rounds,
      toolCalls: result.toolCalls.length,
      toolResults: stats.toolResults,
      llmCalls: result.usage.llmCalls,
      totalTokens: result.usage.totalTokens,
      durationMs: Math.round(performance.now() - startedAt),
    });
  }

  private logFailure(kind: RunKind, threadId: string, error: unknown, startedAt: number): void {
    const code = error instanceof AppError ? error.code : 'internal';
    this.logger[code === 'internal' ? 'error' : 'info']('agent_run_failed', {
      kind,
      threadId,
      stopReason: 'error',
      code,
      ...(code === 'internal' ? { error: describe(error) } : {}),
      durationMs: Math.round(performance.now() - startedAt),
    });
  }
}

/**
 * The setup is over: the next waiting run may start its own, and the upstream request (the SDK
 * builds it synchronously, ~2 ms) goes in a turn of its own.
 */
async function handOver(setup: RunSetupSlot): Promise<void> {
  setup.release();
  await nextTurn();
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
