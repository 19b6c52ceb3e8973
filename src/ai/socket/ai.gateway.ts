import { Inject } from '@nestjs/common';
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
import { SocketEventName, SocketMetrics } from './socket.metrics';
import { AgentResult } from '../agent/agent-result';
import { chatInputOf, resumeInputOf } from '../chat-input';
import { ChatService } from '../chat.service';
import { ActiveRunRegistry } from '../runs/active-run.registry';
import { AiNamespace, AiServerSocket } from './ai-server-socket';
import { ApprovalPendingNotifier } from './approval-pending.notifier';
import { SocketChatDto } from './dto/socket-chat.dto';
import { SocketInterruptDto } from './dto/socket-interrupt.dto';
import { SocketResumeDto } from './dto/socket-resume.dto';
import { socketCorsMiddleware } from './socket-cors.middleware';
import { SocketErrorPresenter } from '../../errors/socket-error.presenter';
import { SocketMessageInbox } from './socket-message.inbox';
import { messageIdOf, validateSocketPayload } from './socket-payload.validator';
import { SocketRunSink } from './socket-run.sink';
import { TokenFlushScheduler } from './token-flush.scheduler';

/** Buffered text goes out at most this long after its first fragment (docs/protocol-notes.md). */
export const TOKEN_FLUSH_INTERVAL_MS = 10;
/** ...or at once when this much text is buffered. */
export const TOKEN_FLUSH_MAX_CHARS = 4096;

type RunStarter<T> = (principal: Principal, message: T, sink: SocketRunSink, signal: AbortSignal) => Promise<AgentResult>;

/**
 * Socket.IO namespace `/ai` (docs/protocol.md §4): `ai:chat`, `ai:resume`, `ai:interrupt` in; `ai:thread`,
 * `ai:token` (coalesced), `ai:tool_start`, `ai:tool_result`, then exactly one `ai:complete` or
 * `ai:error` per request out. Sockets authenticate at connection (namespace middleware); a `token`
 * on a message overrides the handshake principal for that message. Each request's abort controller
 * lives in the ActiveRunRegistry, keyed by socket id and `_id`: `ai:interrupt` and a disconnect stop
 * the generation upstream, and ChatService keeps the partial text in the thread. Requests are handled
 * in arrival order, a few per turn of the event loop (SocketMessageInbox), so a burst of them
 * cannot stall the process.
 */
@WebSocketGateway({ namespace: '/ai', transports: ['websocket', 'polling'] })
export class AiGateway implements OnGatewayInit<AiNamespace>, OnGatewayConnection<AiServerSocket>, OnGatewayDisconnect<AiServerSocket> {
  private readonly events = new AiEventLogger('gateway');
  private readonly scheduler = new TokenFlushScheduler(TOKEN_FLUSH_INTERVAL_MS);
  private readonly presenter: SocketErrorPresenter;
  private readonly inbox = new SocketMessageInbox();

  constructor(
    private readonly chat: ChatService,
    private readonly authenticator: SocketAuthenticator,
    private readonly limiter: RequestRateLimiter,
    private readonly runs: ActiveRunRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: SocketMetrics,
    private readonly approvals: ApprovalPendingNotifier,
  ) {
    this.presenter = new SocketErrorPresenter(config.locale);
  }

  afterInit(namespace: AiNamespace): void {
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
        messageLength: message.message.length,
      });
      return this.chat.chat(principal, chatInputOf(message), sink, signal);
    });
  }

  @SubscribeMessage('ai:resume')
  onResume(@ConnectedSocket() socket: AiServerSocket, @MessageBody() payload: unknown): void {
    this.start(socket, payload, 'ai:resume', SocketResumeDto, (principal, message, sink, signal) => {
      this.events.debug('ws_resume', { requestId: message._id, threadId: message.threadId, approved: message.approved });
      return this.chat.resume(principal, resumeInputOf(message), sink, signal);
    });
  }

  /**
   * Stops the running request `_id` of this socket; its own terminal event (`ai:complete` with
   * `aborted: true`) follows. A request that is not running (already finished) is left alone. Errors
   * about the interrupt itself are sent with `_id: null`: its `_id` belongs to the request it targets.
   */
  @SubscribeMessage('ai:interrupt')
  onInterrupt(@ConnectedSocket() socket: AiServerSocket, @MessageBody() payload: unknown): void {
    // Queued like the requests, so it still follows the ai:chat it was sent after.
    this.inbox.post(() => this.interrupt(socket, payload));
  }

  /** Editors and admins hear about automation runs waiting for them (ai:approval_pending). */
  handleConnection(socket: AiServerSocket): void {
    this.approvals.join(socket, socket.data.principal);
  }

  handleDisconnect(socket: AiServerSocket): void {
    this.runs.stopOwner(socket.id, 'client_disconnect');
  }

  private interrupt(socket: AiServerSocket, payload: unknown): void {
    try {
      const message = validateSocketPayload(SocketInterruptDto, payload);
      // Only this socket's runs can be reached, each authorized when it started; a token sent along is still checked.
      if (message.token !== undefined) this.authenticator.principalForMessage(socket, message.token);
      const stopped = this.runs.stop(socket.id, message._id, 'interrupt');
      this.metrics.event('ai:interrupt', stopped ? 'ok' : 'ignored');
    } catch (error) {
      this.metrics.event('ai:interrupt', this.sendError(socket, null, error));
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
    let message: T;
    let principal: Principal;
    try {
      message = validateSocketPayload(dtoClass, payload);
    } catch (error) {
      this.metrics.event(event, this.sendError(socket, this.attributableId(socket, messageIdOf(payload)), error));
      return;
    }
    if (this.runs.isRunning(socket.id, message._id)) {
      // Its _id names the running request, whose own terminal event is still to come.
      const error = AppError.badRequest(`_id ${message._id} is already in use by a running request of this socket`);
      this.metrics.event(event, this.sendError(socket, null, error));
      return;
    }
    try {
      principal = this.authenticator.principalForMessage(socket, message.token);
    } catch (error) {
      this.metrics.event(event, this.sendError(socket, message._id, error));
      return;
    }
    if (!socket.connected) return;

    const sink = new SocketRunSink(socket, message._id, this.scheduler, TOKEN_FLUSH_MAX_CHARS);
    const active = this.runs.begin(socket.id, message._id, sink);
    if (!active) return; // unreachable: checked above, nothing ran in between
    // The budget is spent first: a refusal ends the request like any failed run (ai:error rate_limit).
    this.limiter
      .consume(principal)
      .then(() => run(principal, message, sink, active.signal))
      .then((result) => {
        // ChatService completes every run it does not throw from; this is a safety net for the contract.
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

  /** An error about a message's `_id` must not look like the terminal event of a running request with that id. */
  private attributableId(socket: AiServerSocket, id: number | null): number | null {
    return id !== null && !this.runs.isRunning(socket.id, id) ? id : null;
  }

  /** Sends the ai:error; returns its code (the request's outcome in the metrics). */
  private sendError(socket: AiServerSocket, id: number | null, error: unknown): ErrorCode {
    const presented = this.presenter.present(error);
    socket.emit('ai:error', { _id: id, ...presented });
    return presented.code;
  }
}
