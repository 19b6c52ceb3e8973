import { Inject, Optional } from '@nestjs/common';
import { GenAiTracer } from '../../observability/tracing/gen-ai.tracer';
import {
  ConnectedSocket,
  MessageBody,
  OnGatewayConnection,
  OnGatewayDisconnect,
  OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
} from '@nestjs/websockets';
import { Principal } from '../../auth/principal';
import { RequestRateLimiter } from '../../auth/request-rate.limiter';
import { SocketAuthenticator } from '../../auth/socket.authenticator';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/app-config.token';
import { AppError } from '../../errors/app-error';
import { ErrorCode } from '../../errors/error-code';
import { AiEventLogger } from '../../observability/ai-event.logger';
import type { RedisConnection } from '../../redis/redis-connection';
import { REDIS_CONNECTION } from '../../redis/redis-connection.token';
import { MemberRoles } from '../../policy/member-roles/member-roles';
import { generateSortableId } from '../../threads/sortable-id.generator';
import { SocketEventName, SocketMetrics } from './socket.metrics';
import { AgentResult } from '../agent/agent-result';
import { chatInputOf, resumeInputOf } from '../chat-input';
import { AskQuestion } from '../use-cases/ask-question.use-case';
import { ResumeInterrupt } from '../use-cases/resume-interrupt.use-case';
import { RevertChanges, RevertResult } from '../use-cases/revert-changes.use-case';
import { ActiveRunRegistry } from '../runs/active-run.registry';
import type { RunEventLog } from '../runs/run-event.log';
import { RUN_EVENT_LOG } from '../runs/run-event-log.token';
import { AiNamespace, AiServerSocket } from './ai-server-socket';
import { ApprovalPendingNotifier } from './approval-pending.notifier';
import { SocketChatDto } from './dto/socket-chat.dto';
import { SocketInterruptDto } from './dto/socket-interrupt.dto';
import { SocketRejoinDto } from './dto/socket-rejoin.dto';
import { SocketResumeDto } from './dto/socket-resume.dto';
import { SocketRestoreDto, SocketUndoDto } from './dto/socket-revert.dto';
import { RunControl } from './run-control';
import { socketCorsMiddleware } from './socket-cors.middleware';
import { SocketErrorPresenter } from '../../errors/socket-error.presenter';
import { SocketMessageInbox } from './socket-message.inbox';
import { messageIdOf, validateSocketPayload } from './socket-payload.validator';
import { SocketRunSink } from './socket-run.sink';
import { useRedisAdapter } from './socket-io-redis.adapter';
import { SocketRejoins } from './socket-rejoins';
import { TOKEN_FLUSH_INTERVAL_MS, TOKEN_FLUSH_MAX_CHARS, TokenFlushScheduler } from './token-flush.scheduler';

type RunStarter<T> = (
  principal: Principal,
  message: T,
  sink: SocketRunSink,
  signal: AbortSignal,
) => Promise<AgentResult>;

/**
 * Socket.IO namespace `/ai` (docs/protocol.md §4, §8.7, §9.4): `ai:chat`, `ai:resume`, `ai:interrupt`, `ai:rejoin`,
 * `ai:undo`, `ai:restore` in; `ai:thread`, `ai:token` (coalesced), `ai:tool_start`, `ai:tool_result`, then exactly one
 * `ai:complete` or `ai:error` per request out (`ai:reverted` or `ai:error` for an undo or restore), each with its
 * `seq`, a run's kept in the request's event log (RUN_EVENT_LOG) for `ai:rejoin` (SocketRejoins). Sockets authenticate at connection (namespace
 * middleware); a `token` on a message overrides the handshake principal for that message. Each
 * request's abort controller lives in the ActiveRunRegistry, keyed by socket id and `_id` and by run
 * key: `ai:interrupt` stops the generation upstream (through RunControl for a rejoined request running
 * on another instance), a disconnect applies AI_DISCONNECT_POLICY, and the run keeps the partial
 * text in the thread. With REDIS_URL the namespace uses Socket.IO's Redis adapter. Requests are handled
 * in arrival order, a few per turn of the event loop (SocketMessageInbox), so a burst of them
 * cannot stall the process.
 */
@WebSocketGateway({ namespace: '/ai', transports: ['websocket', 'polling'] })
export class AiGateway
  implements OnGatewayInit<AiNamespace>, OnGatewayConnection<AiServerSocket>, OnGatewayDisconnect<AiServerSocket>
{
  private readonly events = new AiEventLogger('gateway');
  private readonly scheduler = new TokenFlushScheduler(TOKEN_FLUSH_INTERVAL_MS);
  private readonly presenter: SocketErrorPresenter;
  private readonly inbox = new SocketMessageInbox();
  private readonly rejoins: SocketRejoins;
  /** Undo and restore requests in progress (socket id + `_id`): not generations, but their `_id` is taken meanwhile. */
  private readonly reverting = new Set<string>();

  constructor(
    private readonly askQuestion: AskQuestion,
    private readonly resumeInterrupt: ResumeInterrupt,
    private readonly revertChanges: RevertChanges,
    private readonly authenticator: SocketAuthenticator,
    private readonly limiter: RequestRateLimiter,
    private readonly runs: ActiveRunRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: SocketMetrics,
    private readonly approvals: ApprovalPendingNotifier,
    @Inject(RUN_EVENT_LOG) private readonly log: RunEventLog,
    private readonly control: RunControl,
    private readonly memberRoles: MemberRoles,
    @Optional() private readonly tracer: GenAiTracer = GenAiTracer.disabled,
    @Optional() @Inject(REDIS_CONNECTION) private readonly redis: RedisConnection | null = null,
  ) {
    this.presenter = new SocketErrorPresenter(config.locale);
    this.rejoins = new SocketRejoins(log, control, this.presenter, tracer);
  }

  afterInit(namespace: AiNamespace): void {
    if (this.redis) useRedisAdapter(namespace, this.redis);
    this.control.listen(namespace);
    namespace.use(this.authenticator.middleware());
    this.approvals.attach(namespace);
    const origins = this.config.server.socketCorsOrigins;
    if (origins.length > 0) namespace.server.engine.use(socketCorsMiddleware(origins));
  }

  @SubscribeMessage('ai:chat')
  onChat(@ConnectedSocket() socket: AiServerSocket, @MessageBody() payload: unknown): void {
    this.start(socket, payload, 'ai:chat', SocketChatDto, (principal, message, sink, signal) => {
      // threadId null: the message starts a new thread (its id is in the agent_chat_start that follows).
      this.events.debug('ws_chat', {
        requestId: message._id,
        threadId: message.threadId ?? null,
        graphKey: message.graphKey,
        messageLength: message.message?.length ?? 0,
        segments: message.segments?.length ?? 0,
      });
      return this.tracer.withRemoteParent(socket.handshake.headers, () =>
        this.askQuestion.execute(principal, chatInputOf(message), sink, signal),
      );
    });
  }

  @SubscribeMessage('ai:resume')
  onResume(@ConnectedSocket() socket: AiServerSocket, @MessageBody() payload: unknown): void {
    this.start(socket, payload, 'ai:resume', SocketResumeDto, (principal, message, sink, signal) => {
      this.events.debug('ws_resume', {
        requestId: message._id,
        threadId: message.threadId,
        approved: message.approved,
      });
      // A resume on a thread this socket rejoined continues the trace of the run it rejoined.
      const rejoined = this.rejoins.traceOf(socket.id, message.threadId);
      return this.tracer.withCarriedParent(socket.handshake.headers, rejoined, () =>
        this.resumeInterrupt.execute(principal, resumeInputOf(message), sink, signal),
      );
    });
  }

  /** docs/protocol.md §9.4: reverts a message's changes; `ai:event`, `ai:apply` (HITL_APPLY=client), then `ai:reverted`. */
  @SubscribeMessage('ai:undo')
  onUndo(@ConnectedSocket() socket: AiServerSocket, @MessageBody() payload: unknown): void {
    this.inbox.post(() =>
      this.revert(socket, payload, 'ai:undo', SocketUndoDto, (principal, message, sink) =>
        this.revertChanges.undo(
          principal,
          { threadId: message.threadId, ...(message.messageId ? { messageId: message.messageId } : {}) },
          sink,
        ),
      ),
    );
  }

  /** docs/protocol.md §9.4: reverts everything the assistant applied after a message. */
  @SubscribeMessage('ai:restore')
  onRestore(@ConnectedSocket() socket: AiServerSocket, @MessageBody() payload: unknown): void {
    this.inbox.post(() =>
      this.revert(socket, payload, 'ai:restore', SocketRestoreDto, (principal, message, sink) =>
        this.revertChanges.restore(principal, { threadId: message.threadId, messageId: message.messageId }, sink),
      ),
    );
  }

  /**
   * Stops the running request `_id` of this socket, or the request it rejoined under that `_id` wherever
   * it runs; its own terminal event (`ai:complete` with `aborted: true`) follows. A request that is not
   * running (already finished) is left alone. Errors about the interrupt itself are sent with `_id: null`:
   * its `_id` belongs to the request it targets.
   */
  @SubscribeMessage('ai:interrupt')
  onInterrupt(@ConnectedSocket() socket: AiServerSocket, @MessageBody() payload: unknown): void {
    // Queued like the requests, so it still follows the ai:chat it was sent after.
    this.inbox.post(() => this.interrupt(socket, payload));
  }

  /** Editors and admins hear about automation runs waiting for them (ai:approval_pending). */
  handleConnection(socket: AiServerSocket): void {
    this.approvals.join(socket, socket.data.principal, socket.data.principalExpiresAt);
  }

  /** docs/protocol.md §8.7: replays the thread's latest request after `lastSeq` under `_id`, then the live rest. */
  @SubscribeMessage('ai:rejoin')
  onRejoin(@ConnectedSocket() socket: AiServerSocket, @MessageBody() payload: unknown): void {
    this.inbox.post(() => void this.rejoin(socket, payload));
  }

  handleDisconnect(socket: AiServerSocket): void {
    this.runs.leave(socket.id);
    this.rejoins.leave(socket.id);
  }

  private interrupt(socket: AiServerSocket, payload: unknown): void {
    let message: SocketInterruptDto;
    try {
      message = validateSocketPayload(SocketInterruptDto, payload);
      // Only this socket's runs can be reached, each authorized when it started; a token sent along is still checked.
      if (message.token !== undefined) this.authenticator.principalForMessage(socket, message.token);
    } catch (error) {
      this.metrics.event('ai:interrupt', this.sendError(socket, null, error));
      return;
    }
    if (this.runs.stop(socket.id, message._id, 'interrupt')) {
      this.metrics.event('ai:interrupt', 'ok');
      return;
    }
    const rejoined = this.rejoins.runKeyOf(socket.id, message._id);
    if (rejoined === undefined) {
      this.metrics.event('ai:interrupt', 'ignored');
      return;
    }
    void this.control.stop(rejoined).then((stopped) => this.metrics.event('ai:interrupt', stopped ? 'ok' : 'ignored'));
  }

  private async rejoin(socket: AiServerSocket, payload: unknown): Promise<void> {
    let message: SocketRejoinDto;
    try {
      message = validateSocketPayload(SocketRejoinDto, payload);
    } catch (error) {
      this.metrics.event('ai:rejoin', this.sendError(socket, this.attributableId(socket, messageIdOf(payload)), error));
      return;
    }
    if (this.isInUse(socket, message._id)) {
      this.metrics.event('ai:rejoin', this.sendError(socket, null, idInUse(message._id)));
      return;
    }
    try {
      const principal = this.authenticator.principalForMessage(socket, message.token);
      await this.rejoins.rejoin(socket, message, principal);
      this.metrics.event('ai:rejoin', 'ok');
    } catch (error) {
      this.metrics.event('ai:rejoin', this.sendError(socket, this.attributableId(socket, message._id), error));
    }
  }

  private start<T extends { _id: number; token?: string }>(
    socket: AiServerSocket,
    payload: unknown,
    event: SocketEventName,
    dtoClass: new () => T,
    run: RunStarter<T>,
  ): void {
    this.inbox.post(() => this.startNow(socket, payload, event, dtoClass, run));
  }

  private startNow<T extends { _id: number; token?: string }>(
    socket: AiServerSocket,
    payload: unknown,
    event: SocketEventName,
    dtoClass: new () => T,
    run: RunStarter<T>,
  ): void {
    const admitted = this.admit(socket, payload, event, dtoClass);
    if (!admitted) return;
    const { message, principal } = admitted;
    if (!socket.connected) return;

    const runKey = generateSortableId('run_');
    const log = this.log.open(runKey, { workspace: principal.workspace, userId: principal.userId });
    const sink = new SocketRunSink(socket, message._id, this.scheduler, TOKEN_FLUSH_MAX_CHARS, log, () =>
      this.tracer.activeContext(),
    );
    const active = this.runs.begin(socket.id, message._id, sink, runKey);
    if (!active) {
      // Unreachable (checked above, nothing ran in between); the request still gets its terminal event.
      sink.fail(this.presenter.present(idInUse(message._id)));
      return;
    }
    // The budget is spent first: a refusal ends the request like any failed run (ai:error rate_limit).
    this.limiter
      .consume(principal)
      .then(() => run(principal, message, sink, active.signal))
      .then((result) => {
        // The use cases complete every run it does not throw from; this is a safety net for the contract.
        if (!sink.isFinished) throw new Error('The run ended without a result');
        this.metrics.event(event, result.type === 'message' && result.aborted ? 'aborted' : 'ok');
      })
      .catch((error: unknown) => {
        const presented = this.presenter.present(error);
        sink.fail(presented);
        this.metrics.event(event, presented.code);
      })
      .finally(() => active.end());
  }

  /**
   * An undo or restore: validated and authorized as a run is, rate-limited with the chat and resume requests, its
   * events numbered like a run's (not logged for rejoin: it ends in a moment), then exactly one `ai:reverted` or
   * `ai:error`.
   */
  private revert<T extends { _id: number; token?: string }>(
    socket: AiServerSocket,
    payload: unknown,
    event: SocketEventName,
    dtoClass: new () => T,
    run: (principal: Principal, message: T, sink: SocketRunSink) => Promise<RevertResult>,
  ): void {
    const admitted = this.admit(socket, payload, event, dtoClass);
    if (!admitted) return;
    const { message, principal } = admitted;
    const key = `${socket.id}:${message._id}`;
    this.reverting.add(key);
    const sink = new SocketRunSink(socket, message._id, this.scheduler, TOKEN_FLUSH_MAX_CHARS);
    this.limiter
      .consume(principal)
      .then(() => run(principal, message, sink))
      .then((result) => {
        const { threadId, operationId, reverted, refused, event: reverts } = result;
        sink.reverted({ threadId, operationId, reverted, refused, event: reverts });
        this.metrics.event(event, 'ok');
      })
      .catch((error: unknown) => {
        const presented = this.presenter.present(error);
        sink.fail(presented);
        this.metrics.event(event, presented.code);
      })
      .finally(() => this.reverting.delete(key));
  }

  /**
   * A request's payload validated, its `_id` free on this socket and its principal authenticated; otherwise its
   * `ai:error` is sent (and counted) and nothing is returned.
   */
  private admit<T extends { _id: number; token?: string }>(
    socket: AiServerSocket,
    payload: unknown,
    event: SocketEventName,
    dtoClass: new () => T,
  ): { message: T; principal: Principal } | undefined {
    let message: T;
    try {
      message = validateSocketPayload(dtoClass, payload);
    } catch (error) {
      this.metrics.event(
        event,
        this.sendError(socket, this.attributableId(socket, messageIdOf(payload)), error, FIRST_SEQ),
      );
      return undefined;
    }
    if (this.isInUse(socket, message._id)) {
      // Its _id names the running request, whose own terminal event is still to come.
      this.metrics.event(event, this.sendError(socket, null, idInUse(message._id)));
      return undefined;
    }
    let principal: Principal;
    try {
      principal = this.authenticator.principalForMessage(socket, message.token);
    } catch (error) {
      this.metrics.event(event, this.sendError(socket, message._id, error, FIRST_SEQ));
      return undefined;
    }
    void this.memberRoles.seen(principal);
    return { message, principal };
  }

  /** A running request (or a rejoined one, or an undo in progress) of this socket has this `_id`. */
  private isInUse(socket: AiServerSocket, id: number): boolean {
    return (
      this.runs.isRunning(socket.id, id) || this.rejoins.has(socket.id, id) || this.reverting.has(`${socket.id}:${id}`)
    );
  }

  /** An error about a message's `_id` must not look like the terminal event of a running request with that id. */
  private attributableId(socket: AiServerSocket, id: number | null): number | null {
    return id !== null && !this.isInUse(socket, id) ? id : null;
  }

  /**
   * Sends the ai:error; returns its code (the request's outcome in the metrics). `seq` is given for an
   * error ending a chat or resume before it ran (its only event: FIRST_SEQ); an error about a rejoin has
   * none (docs/protocol.md §8.7: a client keeps the last seq of the request it rejoins and drops lower ones).
   */
  private sendError(socket: AiServerSocket, id: number | null, error: unknown, seq?: number): ErrorCode {
    const presented = this.presenter.present(error);
    socket.emit(
      'ai:error',
      id !== null && seq !== undefined ? { _id: id, seq, ...presented } : { _id: id, ...presented },
    );
    return presented.code;
  }
}

/** The seq of a request's first event. */
const FIRST_SEQ = 1;

function idInUse(id: number): AppError {
  return AppError.badRequest(`_id ${id} is already in use by a running request of this socket`);
}
