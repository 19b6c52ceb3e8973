import { io, type Socket } from 'socket.io-client';
import { AiRequest, type AiRequestHandlers } from './ai-request';
import { ListenerSet } from './listener-set';
import type {
  AiApprovalPendingEvent,
  AiChatMessage,
  AiClientToServerEvents,
  AiErrorEvent,
  AiRestoreMessage,
  AiResumeMessage,
  AiServerToClientEvents,
  AiUndoMessage,
} from './protocol';
import { DEFAULT_COALESCE_MS } from './token-coalescer';

/** A JWT, or a function that returns the current one (read at each connection and each message). */
export type TokenSource = string | (() => string | undefined | null);

export interface AiChatClientOptions {
  /** The service's origin, e.g. `http://localhost:3000` (the namespace `/ai` is added). */
  url: string;
  token?: TokenSource;
  /** Socket.IO path (default `/socket.io`, docs/protocol.md §4). */
  path?: string;
  /** Default: polling then websocket, as socket.io-client does. */
  transports?: Array<'websocket' | 'polling'>;
  /** Rendering throttle for `onText` (default 32 ms; 0: every `ai:token` at once). */
  coalesceMs?: number;
  /** Reconnect after a dropped connection (default true). */
  reconnection?: boolean;
  /** How long a running request waits after a drop for its rejoined events (docs/protocol.md §8.7) before it fails (default 10 s). */
  rejoinTimeoutMs?: number;
  /** Connect at once (default true); otherwise call connect(). */
  autoConnect?: boolean;
}

/** Connection-level events, each with a typed callback. */
export interface AiChatClientEvents {
  connect: () => void;
  disconnect: (reason: string) => void;
  /** Refused or failed connection; `error.message` is "unauthorized" when the token was refused (docs/protocol.md §1). */
  connect_error: (error: Error) => void;
  /** `ai:approval_pending` (8.4): an automation run waits for an editor or admin. */
  approval_pending: (event: AiApprovalPendingEvent) => void;
  /** `ai:error` with `_id: null`: an error that belongs to no request. */
  orphan_error: (event: AiErrorEvent) => void;
}

export type ChatInput = Omit<AiChatMessage, '_id' | 'token'>;
export type ResumeInput = Omit<AiResumeMessage, '_id' | 'token'>;
export type UndoInput = Omit<AiUndoMessage, '_id' | 'token'>;
export type RestoreInput = Omit<AiRestoreMessage, '_id' | 'token'>;

type ClientSocket = Socket<AiServerToClientEvents, AiClientToServerEvents>;

const REQUEST_EVENTS = [
  'ai:thread',
  'ai:token',
  'ai:tool_start',
  'ai:tool_result',
  'ai:event',
  'ai:apply',
  'ai:complete',
  'ai:reverted',
  'ai:error',
] as const satisfies ReadonlyArray<keyof AiServerToClientEvents>;

/**
 * A typed, framework-free client of the assistant's Socket.IO namespace `/ai` (docs/protocol.md §4, §8, §9).
 * Each chat, resume, rejoin, undo or restore is an AiRequest with its own `_id`, typed callbacks and a `done` promise;
 * token text is coalesced for rendering; the JWT goes in the handshake and on every message. When the
 * connection drops, socket.io-client reconnects; a running request whose events carry `seq` is picked up
 * again with `ai:rejoin`, any other one fails with a retryable `network` error.
 */
export class AiChatClient {
  private readonly socket: ClientSocket;
  private readonly requests = new Map<number, AiRequest>();
  /** Requests caught by a dropped connection, to rejoin once it is back. */
  private readonly toRejoin = new Set<AiRequest>();
  private readonly listeners = new ListenerSet<AiChatClientEvents>();
  private readonly coalesceMs: number;
  private readonly rejoinTimeoutMs: number;
  private nextId = 1;

  constructor(private readonly options: AiChatClientOptions) {
    this.coalesceMs = options.coalesceMs ?? DEFAULT_COALESCE_MS;
    this.rejoinTimeoutMs = options.rejoinTimeoutMs ?? 10_000;
    this.socket = io(`${options.url.replace(/\/+$/, '')}/ai`, {
      path: options.path,
      transports: options.transports,
      reconnection: options.reconnection ?? true,
      autoConnect: false,
      forceNew: true,
      // Read at each (re)connection, so a refreshed token is used.
      auth: (send) => {
        const token = this.currentToken();
        send(token ? { token } : {});
      },
    });
    this.socket.on('connect', () => this.onConnect());
    this.socket.on('disconnect', (reason) => this.onDisconnect(reason));
    this.socket.on('connect_error', (error) => this.listeners.emit('connect_error', error));
    this.socket.on('ai:approval_pending', (event) => this.listeners.emit('approval_pending', event));
    for (const name of REQUEST_EVENTS) {
      (this.socket as unknown as Socket).on(name, (payload: { _id: number | null }) => this.route(name, payload));
    }
    if (options.autoConnect ?? true) this.connect();
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  /** The requests still running (or waiting to be rejoined). */
  get activeRequests(): AiRequest[] {
    return [...this.requests.values()];
  }

  connect(): void {
    if (!this.socket.connected && !this.socket.active) this.socket.connect();
  }

  /** Closes the connection; running requests fail (the service stops them and keeps their partial text). */
  disconnect(): void {
    this.socket.disconnect();
  }

  on<K extends keyof AiChatClientEvents>(event: K, listener: AiChatClientEvents[K]): () => void {
    return this.listeners.on(event, listener);
  }

  /** `ai:chat`: a message, starting a thread when `threadId` is absent. */
  chat(input: ChatInput, handlers: AiRequestHandlers = {}): AiRequest {
    const request = this.begin('chat', handlers, { threadId: input.threadId });
    this.socket.emit('ai:chat', { ...input, _id: request.id, ...this.tokenField() });
    return request;
  }

  /**
   * `ai:resume`: approve or reject a proposal (`feedback`), approve some items of a batch (`approvedItems`, the
   * others declined: docs/protocol.md §9.3), or answer a question (`answer`, §8.2).
   */
  resume(input: ResumeInput, handlers: AiRequestHandlers = {}): AiRequest {
    const request = this.begin('resume', handlers, { threadId: input.threadId });
    this.socket.emit('ai:resume', { ...input, _id: request.id, ...this.tokenField() });
    return request;
  }

  /**
   * `ai:undo` (docs/protocol.md §9.4): reverts the changes of a message (`messageId`: an assistant message, or the
   * ACTIONS_REVERTED event of an earlier revert to put its changes back; absent: the latest assistant message whose
   * changes are in effect). Ends with `onReverted` (what was reverted, what was refused) or `onError`.
   */
  undo(input: UndoInput, handlers: AiRequestHandlers = {}): AiRequest {
    const request = this.begin('undo', handlers, { threadId: input.threadId });
    this.socket.emit('ai:undo', { ...input, _id: request.id, ...this.tokenField() });
    return request;
  }

  /** `ai:restore` (docs/protocol.md §9.4): reverts everything the assistant applied after `messageId`, newest first. */
  restore(input: RestoreInput, handlers: AiRequestHandlers = {}): AiRequest {
    const request = this.begin('restore', handlers, { threadId: input.threadId });
    this.socket.emit('ai:restore', { ...input, _id: request.id, ...this.tokenField() });
    return request;
  }

  /**
   * `ai:rejoin` (docs/protocol.md §8.7): the events of the thread's latest request after `lastSeq`, then the
   * rest live. Fails with `timeout` when nothing comes within `rejoinTimeoutMs` (a service without 8.7).
   */
  rejoin(input: { threadId: string; lastSeq: number }, handlers: AiRequestHandlers = {}): AiRequest {
    const request = this.begin('rejoin', handlers, input);
    this.socket.emit('ai:rejoin', {
      _id: request.id,
      threadId: input.threadId,
      lastSeq: input.lastSeq,
      ...this.tokenField(),
    });
    request.awaitRejoin(this.rejoinTimeoutMs, {
      code: 'timeout',
      error: 'The assistant did not answer the rejoin.',
      retryable: true,
      fromServer: false,
    });
    return request;
  }

  /** Closes the connection for good (running requests fail) and removes the socket's listeners. */
  close(): void {
    this.socket.disconnect();
    this.socket.removeAllListeners();
  }

  private begin(
    kind: AiRequest['kind'],
    handlers: AiRequestHandlers,
    start: { threadId?: string; lastSeq?: number },
  ): AiRequest {
    const id = this.nextId++;
    const request = new AiRequest(id, kind, handlers, this.coalesceMs, (stopped) => this.stop(stopped), start);
    this.requests.set(id, request);
    void request.done.then(() => this.requests.delete(id));
    return request;
  }

  private stop(request: AiRequest): void {
    if (request.status === 'rejoining') {
      request.fail({
        code: 'network',
        error: 'Stopped while the connection was lost.',
        retryable: true,
        fromServer: false,
      });
      return;
    }
    this.socket.emit('ai:interrupt', { _id: request.id, ...this.tokenField() });
  }

  private route(event: (typeof REQUEST_EVENTS)[number], payload: { _id: number | null }): void {
    if (payload._id === null) {
      if (event === 'ai:error') this.listeners.emit('orphan_error', payload as AiErrorEvent);
      return;
    }
    this.requests.get(payload._id)?.receive(event, payload);
  }

  private onConnect(): void {
    for (const request of this.toRejoin) {
      if (request.status !== 'rejoining' || request.threadId === null) continue;
      this.socket.emit('ai:rejoin', {
        _id: request.id,
        threadId: request.threadId,
        lastSeq: request.lastSeq,
        ...this.tokenField(),
      });
    }
    this.toRejoin.clear();
    this.listeners.emit('connect');
  }

  private onDisconnect(reason: string): void {
    // socket.active: socket.io-client will reconnect by itself (not after disconnect() or a server-side kick).
    const willReconnect = this.socket.active;
    for (const request of this.requests.values()) {
      if (willReconnect && request.canRejoin) {
        request.awaitRejoin(this.rejoinTimeoutMs, {
          code: 'network',
          error: 'The connection to the assistant was lost and the answer could not be picked up again.',
          retryable: true,
          fromServer: false,
        });
        this.toRejoin.add(request);
      } else if (request.kind === 'undo' || request.kind === 'restore') {
        // It may have been done: sent again, an undo without messageId would revert the next message.
        request.fail({
          code: 'network',
          error: `The connection to the assistant was lost (${reason}): the thread's changes tell whether the ${request.kind} was done.`,
          retryable: false,
          fromServer: false,
        });
      } else {
        request.fail({
          code: 'network',
          error: `The connection to the assistant was lost (${reason}).`,
          retryable: true,
          fromServer: false,
        });
      }
    }
    this.listeners.emit('disconnect', reason);
  }

  private currentToken(): string | undefined {
    const source = this.options.token;
    const token = typeof source === 'function' ? source() : source;
    return token || undefined;
  }

  private tokenField(): { token?: string } {
    const token = this.currentToken();
    return token ? { token } : {};
  }
}
