import type { Principal } from '../../auth/principal';
import { AppError } from '../../errors/app-error';
import type { SocketErrorPresenter } from '../../errors/socket-error.presenter';
import { GenAiTracer, TraceContext } from '../../observability/tracing/gen-ai.tracer';
import { LatestRun, LoggedRunEvent, RunEventLog, TERMINAL_RUN_EVENTS } from '../runs/run-event.log';
import type { AiServerSocket } from './ai-server-socket';
import type { AiRejoinMessage } from './ai-socket.events';
import type { RunControl } from './run-control';

/** Requests one socket may follow at once through rejoins (a client follows one per open conversation). */
export const MAX_REJOINS_PER_SOCKET = 16;

/** One rejoined request of a socket. */
interface Rejoin {
  readonly runKey: string;
  /** Stops following the log (the terminal event came, the socket left). */
  stop: () => void;
  ended: boolean;
}

/**
 * The requests sockets rejoined with `ai:rejoin`, by socket and `_id`. A rejoin
 * finds the thread's latest request in the event log (only its owner may: anyone else gets not_found,
 * as for a thread that is not theirs), replays its events after `lastSeq` under the rejoin's `_id` with
 * their own `seq`, then forwards the live rest until the terminal event; meanwhile the socket watches the
 * run wherever it runs (so AI_DISCONNECT_POLICY=continue does not stop it) and `ai:interrupt` with that
 * `_id` stops it. Errors about the rejoin itself (nothing to rejoin, events no longer kept, the log lost)
 * are an `ai:error` under the rejoin's `_id`, without `seq`: they are not events of the request.
 */
export class SocketRejoins {
  private readonly bySocket = new Map<string, Map<number, Rejoin>>();
  /** The trace of the run each socket last rejoined on a thread (traced runs only), for its resumes of that thread. */
  private readonly tracesBySocket = new Map<string, Map<string, TraceContext>>();

  constructor(
    private readonly log: RunEventLog,
    private readonly control: RunControl,
    private readonly presenter: SocketErrorPresenter,
    private readonly tracer: GenAiTracer = GenAiTracer.disabled,
  ) {}

  /** The trace context of the run this socket rejoined on this thread, when it was traced. */
  traceOf(socketId: string, threadId: string): TraceContext | undefined {
    return this.tracesBySocket.get(socketId)?.get(threadId);
  }

  /** Whether the socket follows a rejoined request under this `_id`. */
  has(socketId: string, id: number): boolean {
    return this.bySocket.get(socketId)?.has(id) ?? false;
  }

  /** The run the socket rejoined under this `_id`, if any (what `ai:interrupt` stops). */
  runKeyOf(socketId: string, id: number): string | undefined {
    return this.bySocket.get(socketId)?.get(id)?.runKey;
  }

  /**
   * Starts the replay (the caller checked that `_id` is free on this socket). Throws not_found (nothing to
   * rejoin for this principal on that thread, or its events are gone) and store_unavailable (the shared log
   * cannot be read); once the events flow, failures are sent as ai:error.
   */
  async rejoin(socket: AiServerSocket, message: AiRejoinMessage, principal: Principal): Promise<void> {
    const latest = await this.log.latest(message.threadId);
    if (!latest || latest.owner.workspace !== principal.workspace || latest.owner.userId !== principal.userId) {
      throw AppError.notFound(`No request to rejoin on thread "${message.threadId}"`);
    }
    // The span of the rejoin continues the run's trace, wherever the run runs (its context came through the log).
    await this.tracer.rejoin(
      socket.handshake.headers,
      latest.trace,
      { 'gen_ai.conversation.id': message.threadId, 'app.run.key': latest.runKey },
      () => this.follow(socket, message, latest),
    );
  }

  private async follow(socket: AiServerSocket, message: AiRejoinMessage, latest: LatestRun): Promise<void> {
    if (!socket.connected) return;
    if (this.has(socket.id, message._id))
      throw AppError.badRequest(`_id ${message._id} is already in use by a running request of this socket`);
    if ((this.bySocket.get(socket.id)?.size ?? 0) >= MAX_REJOINS_PER_SOCKET) {
      throw AppError.badRequest(`This socket already follows ${MAX_REJOINS_PER_SOCKET} rejoined requests`);
    }
    const rejoin: Rejoin = { runKey: latest.runKey, stop: () => undefined, ended: false };
    this.bind(socket.id, message._id, rejoin);
    if (latest.trace) this.rememberTrace(socket.id, message.threadId, latest.trace);
    this.control.watch(latest.runKey, socket.id);
    const end = () => {
      if (rejoin.ended) return;
      rejoin.ended = true;
      rejoin.stop();
      this.unbind(socket.id, message._id, rejoin);
      this.control.unwatch(latest.runKey, socket.id);
    };
    const forward = (event: LoggedRunEvent) =>
      socket.emit(event.event, { _id: message._id, seq: event.seq, ...event.payload } as never);
    let outcome: Awaited<ReturnType<RunEventLog['follow']>>;
    try {
      outcome = await this.log.follow(latest.runKey, message.lastSeq, {
        events: (events) => {
          if (rejoin.ended) return;
          for (const event of events) forward(event);
          if (events.some((event) => TERMINAL_RUN_EVENTS.has(event.event))) end();
        },
        lost: () => {
          if (rejoin.ended) return;
          end();
          const presented = this.presenter.present(
            new AppError('store_unavailable', 'The request log was lost while following it'),
          );
          socket.emit('ai:error', { _id: message._id, ...presented });
        },
      });
    } catch (error) {
      end();
      throw error;
    }
    if (outcome.kind === 'following') {
      if (rejoin.ended) outcome.stop();
      else rejoin.stop = outcome.stop;
      return;
    }
    end();
    throw AppError.notFound(
      outcome.kind === 'gone'
        ? `The events of the latest request of thread "${message.threadId}" are no longer kept`
        : `The events after seq ${message.lastSeq} are no longer kept (the oldest kept is ${outcome.firstKeptSeq}); read the thread instead`,
    );
  }

  /** The socket disconnected: its rejoins stop following and stop watching their runs. */
  leave(socketId: string): void {
    this.tracesBySocket.delete(socketId);
    const rejoins = this.bySocket.get(socketId);
    if (!rejoins) return;
    this.bySocket.delete(socketId);
    for (const rejoin of rejoins.values()) {
      if (rejoin.ended) continue;
      rejoin.ended = true;
      rejoin.stop();
      this.control.unwatch(rejoin.runKey, socketId);
    }
  }

  /** Bounded like the rejoins: the oldest thread's trace goes first. */
  private rememberTrace(socketId: string, threadId: string, trace: TraceContext): void {
    let traces = this.tracesBySocket.get(socketId);
    if (!traces) {
      traces = new Map();
      this.tracesBySocket.set(socketId, traces);
    }
    traces.delete(threadId);
    traces.set(threadId, trace);
    if (traces.size > MAX_REJOINS_PER_SOCKET) traces.delete(traces.keys().next().value as string);
  }

  private bind(socketId: string, id: number, rejoin: Rejoin): void {
    let rejoins = this.bySocket.get(socketId);
    if (!rejoins) {
      rejoins = new Map();
      this.bySocket.set(socketId, rejoins);
    }
    rejoins.set(id, rejoin);
  }

  private unbind(socketId: string, id: number, rejoin: Rejoin): void {
    const rejoins = this.bySocket.get(socketId);
    if (rejoins?.get(id) !== rejoin) return;
    rejoins.delete(id);
    if (rejoins.size === 0) this.bySocket.delete(socketId);
  }
}
