import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Principal } from '../../auth/principal';
import { AppError } from '../../errors/app-error';
import { ATTR_GEN_AI_CONVERSATION_ID } from '@opentelemetry/semantic-conventions/incubating';
import { Logger } from '../../observability/logger';
import { GenAiTracer } from '../../observability/tracing/gen-ai.tracer';
import { ThreadRunLease } from '../../threads/thread-run.lease';
import { ThreadRoundCommit, ThreadService } from '../../threads/thread.service';
import { EMPTY_USAGE, ThreadRecord, UsageTotals } from '../../threads/thread.types';
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

/** How a run on a thread ended (its result, or what it threw), with its usage: what AutomationRuns.runEnded is told. */
export interface ThreadRunEnd {
  kind: RunKind;
  thread: ThreadRecord;
  /**
   * The run got past its setup into the loop (handOver). A resume refused before it (no pending interrupt any more:
   * a racing resume won; a viewer; a spent budget) changed nothing on the thread.
   */
  ranLoop: boolean;
  result?: AgentResult;
  error?: unknown;
  usage: UsageTotals;
}

/** What a run's body works with, once its thread is known and its lease held. */
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
   * The pacer of one upstream call's stream: it gives way to runs waiting for their setup (SetupFirstScheduling),
   * and relays within the streams' share of each turn (TurnBudget).
   */
  streamPacer(): StreamPacer;
  /**
   * Commits a round of the run: a revision conflict is re-read and replayed (RoundCommitReplayer), a lease held
   * elsewhere is thread_busy at once. `last`: nothing of the run is written after this round, so the same write
   * releases the thread's lease and records the run's usage (the run's end costs no write of its own).
   */
  commit(thread: ThreadRecord, round: ThreadRoundCommit, options?: { last?: boolean }): Promise<RoundCommitReceipt>;
}

/** What a run's body ends with: the answer, and how the run went (its log line, the metrics). */
export interface RunOutcome {
  result: AgentResult;
  stats: AgentRunStats;
}

/** Told of each run's life: background work that yields to runs (conversation memory). */
export interface ThreadRunLifecycle {
  /** A run began (before its setup slot). */
  started(): void;
  /** The run holds the thread's lease (its recall should see the thread's earlier turns). */
  leased(principal: Principal, threadId: string): void;
  /**
   * The run is over, whatever its outcome (once per `started`, after its terminal event). `threadId` is the thread it
   * held the lease of (it may have new rounds), null when it never got one.
   */
  settled(principal: Principal, threadId: string | null): void;
}

/** Told how each run on an automation's thread ended (AutomationRuns.runEnded), before the run's answer. */
export type AutomationRunEndListener = (end: ThreadRunEnd) => Promise<void>;

export interface ThreadRunnerOptions {
  /** Longest a run's stream gives way, per upstream call, to runs waiting for their setup (SetupFirstScheduling; 0: never). */
  setupFirstMaxMs?: number;
  /** Runs waiting for their setup beyond which running streams give way (SetupFirstScheduling). */
  setupFirstMinWaiting?: number;
  /** Time per turn of the event loop after which no more streams start relaying (TurnBudget; 0: no limit). */
  streamTurnBudgetMs?: number;
  /** A span per commit of a round (none by default). */
  tracer?: GenAiTracer;
}

/** What every RunSession of a runner shares. */
interface RunServices {
  threads: ThreadService;
  logger: Logger;
  observer?: AgentRunObserver;
  lifecycle?: ThreadRunLifecycle;
  commits: RoundCommitReplayer;
  automationRunEnded?: AutomationRunEndListener;
  streamPacer(signal: AbortSignal): StreamPacer;
  tracer: GenAiTracer;
}

export interface RunRequest {
  principal: Principal;
  sink: AgentEventSink;
  signal: AbortSignal;
}

/**
 * Where every run of the agent (chat, resume, automation) begins: a
 * use case calls begin() and gets a RunSession, then drives it step by step, each call going down: find its thread
 * inside the setup slot, take the thread's lease (or adopt the one a new thread was created with), run, and end with
 * finish() (or fail()). The runner owns what every run shares: admission into the setup (RunSetupGate, first come
 * first served, never refused), the thread's run lease (one run per thread, on any instance), the commit path of its
 * rounds (replayed after a revision conflict), usage recorded in every case, one log line for its end (with why it
 * stopped) and the run metrics, the end of a run on an automation's thread told to AUTOMATION_RUNS, and
 * `sink.complete` with the result AFTER the lease was released (a client may resume the moment it sees an interrupt).
 */
export class ThreadRunner {
  private readonly setupGate = new RunSetupGate();
  private readonly setupFirst: SetupFirstScheduling;
  private readonly turnBudget: TurnBudget;
  private readonly services: RunServices;

  constructor(
    threads: ThreadService,
    logger: Logger,
    observer?: AgentRunObserver,
    private readonly lifecycle?: ThreadRunLifecycle,
    automationRunEnded?: AutomationRunEndListener,
    options: ThreadRunnerOptions = {},
  ) {
    this.setupFirst = new SetupFirstScheduling(this.setupGate, {
      maxMs: options.setupFirstMaxMs,
      minWaiting: options.setupFirstMinWaiting,
    });
    this.turnBudget = new TurnBudget(options.streamTurnBudgetMs);
    this.services = {
      threads,
      logger,
      observer,
      lifecycle,
      commits: new RoundCommitReplayer(threads, { observer }),
      automationRunEnded,
      tracer: options.tracer ?? GenAiTracer.disabled,
      // Before each chunk: a stream giving way to waiting setups goes on in a turn of its own; any other waits, when
      // this turn's share is spent, for a turn with time left.
      streamPacer: (signal) => {
        const setupFirst = this.setupFirst.pacer(signal);
        const turn = this.turnBudget.pacer();
        return { beforeChunk: () => setupFirst.beforeChunk() ?? turn.beforeChunk() };
      },
    };
  }

  /** Runs waiting for their setup, running streams giving way to them, and streams put off (RunSchedulingMetrics). */
  schedulingState(): RunSchedulingState {
    return {
      waitingForSetup: this.setupGate.queued,
      streamsGivingWay: this.setupFirst.streamsGivingWay,
      streamsPutOff: this.turnBudget.waiting,
    };
  }

  /** A run begins: it waits for its setup slot. */
  async begin(kind: RunKind, request: RunRequest): Promise<RunSession> {
    this.lifecycle?.started();
    try {
      return new RunSession(this.services, kind, request, await this.setupGate.enter());
    } catch (error) {
      this.lifecycle?.settled(request.principal, null);
      throw error;
    }
  }
}

/**
 * One run, from its setup slot to its end (ThreadRunner.begin). Not leased yet: the use case finds its thread, then
 * lease() or adopt(); leased, it is the ThreadRun its body works with; then finish() answers (or fail() rethrows).
 * abandon() ends a run that never got its thread.
 */
export class RunSession implements ThreadRun {
  readonly usage = new UsageAccumulator();
  private readonly startedAt = performance.now();
  private thread: ThreadRecord | null = null;
  private lease: ThreadRunLease | null = null;
  private runSignal: AbortSignal | null = null;
  /** The usage recorded by the write of the run's last round, which released its lease (undefined: not yet). */
  private usageAtEnd: UsageTotals | null | undefined = undefined;
  private ranLoop = false;
  private ended = false;

  constructor(
    private readonly services: RunServices,
    readonly kind: RunKind,
    private readonly request: RunRequest,
    private readonly setup: RunSetupSlot,
  ) {}

  get signal(): AbortSignal {
    return this.runSignal ?? this.request.signal;
  }

  /** Takes the thread's run lease (thread_busy when another run, on any instance, holds it). */
  async leaseThread(thread: ThreadRecord): Promise<void> {
    this.adopt(thread, await this.services.threads.acquireRun(thread.threadId));
  }

  /** The lease the thread was created with (ThreadService.createForRun). */
  adopt(thread: ThreadRecord, lease: ThreadRunLease): void {
    this.thread = thread;
    this.lease = lease;
    this.runSignal = AbortSignal.any([this.request.signal, lease.signal]);
    this.services.lifecycle?.leased(this.request.principal, thread.threadId);
    this.request.sink.leased?.(thread.threadId);
  }

  pause(): Promise<void> {
    return this.setup.pause();
  }

  async handOver(): Promise<void> {
    this.ranLoop = true;
    this.setup.release();
    await nextTurn();
  }

  streamPacer(): StreamPacer {
    return this.services.streamPacer(this.signal);
  }

  commit(
    thread: ThreadRecord,
    round: ThreadRoundCommit,
    options: { last?: boolean } = {},
  ): Promise<RoundCommitReceipt> {
    const lease = this.leaseOrThrow();
    const { principal } = this.request;
    const hold = { principal, confirmLease: () => lease.renew() };
    const write = options.last
      ? () =>
          lease.endWith(async (holder) => {
            const usage = this.usage.isEmpty ? null : this.usage.totals();
            const end = {
              holder,
              ...(usage ? { usage: { workspace: principal.workspace, usage, now: Date.now() } } : {}),
            };
            const receipt = await this.services.commits.commit(thread, round, hold, end);
            this.usageAtEnd = usage;
            return receipt;
          })
      : () => this.services.commits.commit(thread, round, hold);
    const { tracer } = this.services;
    if (!tracer.enabled) return write();
    return tracer.step(
      'thread commit',
      { [ATTR_GEN_AI_CONVERSATION_ID]: thread.threadId, 'app.commit.messages': round.append.length },
      async (span) => {
        const receipt = await write();
        span.set({ 'app.commit.applied': receipt.applied, 'app.commit.replays': receipt.replays });
        return receipt;
      },
    );
  }

  /** A run that never got its thread (not found, thread_busy): its setup slot freed; `error` rethrown. */
  abandon(error: unknown): never {
    this.setup.release();
    this.end(null);
    throw error;
  }

  /**
   * The run's answer: usage recorded with the lease's release, the log line and metrics, the end told to
   * AUTOMATION_RUNS for an automation's thread, then `sink.complete`.
   */
  async finish(outcome: RunOutcome): Promise<AgentResult> {
    const thread = this.leasedThread();
    try {
      await this.release();
      await this.tellAutomations({ result: outcome.result });
      const { result, stats } = outcome;
      this.logDone(outcome);
      this.services.observer?.runEnded({
        kind: this.kind,
        stopReason: stats.stopReason,
        rounds: stats.rounds,
        toolCalls: result.toolCalls.length,
        toolResults: stats.toolResults,
      });
      this.request.sink.complete(result);
      return result;
    } finally {
      this.end(thread.threadId);
    }
  }

  /** The run failed under its lease: logged, usage recorded, lease released, AUTOMATION_RUNS told, `error` rethrown. */
  async fail(error: unknown): Promise<never> {
    const thread = this.leasedThread();
    try {
      this.logFailure(error);
      this.services.observer?.runEnded({
        kind: this.kind,
        stopReason: 'error',
        rounds: 0,
        toolCalls: 0,
        toolResults: 0,
      });
      await this.release();
      await this.tellAutomations({ error });
    } finally {
      this.end(thread.threadId);
    }
    throw error;
  }

  private leaseOrThrow(): ThreadRunLease {
    if (!this.lease) throw new AppError('internal', 'The run holds no thread lease');
    return this.lease;
  }

  private leasedThread(): ThreadRecord {
    if (!this.thread) throw new AppError('internal', 'The run has no thread');
    return this.thread;
  }

  private end(threadId: string | null): void {
    if (this.ended) return;
    this.ended = true;
    this.services.lifecycle?.settled(this.request.principal, threadId);
  }

  private async tellAutomations(ending: { result?: AgentResult; error?: unknown }): Promise<void> {
    const thread = this.leasedThread();
    const listener = this.services.automationRunEnded;
    if (!listener || thread.type !== 'automation') return;
    try {
      await listener({ kind: this.kind, thread, ranLoop: this.ranLoop, usage: this.usage.totals(), ...ending });
    } catch (error) {
      this.services.logger.error('automation_run_end_failed', {
        threadId: thread.threadId,
        error: describe(error),
      });
    }
  }

  /**
   * The setup slot freed, the run's usage recorded and its lease released, in one write (ThreadRunLease.release);
   * when that write fails, the usage is recorded on its own (the lease then expires). A run whose last round did
   * both already (commit with `last`) records only usage that came after it, if any.
   */
  private async release(): Promise<void> {
    this.setup.release();
    const lease = this.leaseOrThrow();
    const { principal } = this.request;
    if (this.usageAtEnd !== undefined) {
      const late = usageSince(this.usage.totals(), this.usageAtEnd);
      if (late) await this.recordUsage(late);
      return;
    }
    if (this.usage.isEmpty) {
      await lease.release();
      return;
    }
    if (!(await lease.release({ workspace: principal.workspace, usage: this.usage.totals(), now: Date.now() })))
      await this.recordUsage(this.usage.totals());
  }

  /** Usage recorded on its own (never thrown: the run's answer does not depend on it). */
  private async recordUsage(usage: UsageTotals): Promise<void> {
    const { principal } = this.request;
    try {
      await this.services.threads.addUsage(principal.workspace, this.leasedThread().threadId, usage);
    } catch (error) {
      this.services.logger.error('usage_record_failed', {
        threadId: this.leasedThread().threadId,
        workspace: principal.workspace,
        error: describe(error),
      });
    }
  }

  private logDone({ result, stats }: RunOutcome): void {
    this.services.logger.info('agent_run_done', {
      kind: this.kind,
      threadId: result.threadId,
      outcome:
        result.type === 'interrupt' ? 'interrupt' : result.type === 'message' && result.aborted ? 'aborted' : 'message',
      stopReason: stats.stopReason,
      rounds: stats.rounds,
      toolCalls: result.toolCalls.length,
      toolResults: stats.toolResults,
      llmCalls: result.usage.llmCalls,
      totalTokens: result.usage.totalTokens,
      durationMs: Math.round(performance.now() - this.startedAt),
    });
  }

  private logFailure(error: unknown): void {
    const code = error instanceof AppError ? error.code : 'internal';
    this.services.logger[code === 'internal' ? 'error' : 'info']('agent_run_failed', {
      kind: this.kind,
      threadId: this.thread?.threadId,
      stopReason: 'error',
      code,
      ...(code === 'internal' ? { error: describe(error) } : {}),
      durationMs: Math.round(performance.now() - this.startedAt),
    });
  }
}

/** What `now` adds to `recorded` (null: nothing; `recorded` null: no usage was recorded). */
function usageSince(now: UsageTotals, recorded: UsageTotals | null): UsageTotals | null {
  const before = recorded ?? EMPTY_USAGE;
  if (now.llmCalls === before.llmCalls && now.totalTokens === before.totalTokens) return null;
  return {
    promptTokens: now.promptTokens - before.promptTokens,
    completionTokens: now.completionTokens - before.completionTokens,
    cachedTokens: now.cachedTokens - before.cachedTokens,
    totalTokens: now.totalTokens - before.totalTokens,
    costUsd: Math.round((now.costUsd - before.costUsd) * 1e8) / 1e8,
    llmCalls: now.llmCalls - before.llmCalls,
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
