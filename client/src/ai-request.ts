import type {
  AiApplyEvent,
  AiCompleteEvent,
  AiErrorEvent,
  AiEventPayload,
  AiRevertedEvent,
  AiThreadEvent,
  AiTokenEvent,
  AiToolResultEvent,
  AiToolStartEvent,
  ErrorCode,
} from './protocol';
import { TokenCoalescer } from './token-coalescer';

export type AiRequestKind = 'chat' | 'resume' | 'rejoin' | 'undo' | 'restore';

/** Why a request failed: the service's `ai:error`, or the client's own verdict (connection lost). */
export interface AiRequestError {
  code: ErrorCode;
  /** Text for the user (the service's, in its AI_LOCALE; or the client's, in English). */
  error: string;
  retryable: boolean;
  /** false: decided by the client, e.g. the connection dropped and the request could not be rejoined. */
  fromServer: boolean;
}

/** How a request ended: `complete` (chat, resume, rejoin), `reverted` (undo, restore), or `error`. */
export type AiRequestOutcome =
  | { type: 'complete'; event: AiCompleteEvent }
  | { type: 'reverted'; event: AiRevertedEvent }
  | { type: 'error'; error: AiRequestError };

/** Typed callbacks for every event of one request (docs/protocol.md §4 and §8). All optional. */
export interface AiRequestHandlers {
  onThread?(event: AiThreadEvent): void;
  /** Each `ai:token` as received. */
  onToken?(event: AiTokenEvent): void;
  /** The text, coalesced for rendering (at most once per `coalesceMs`): the new part and all of it so far. */
  onText?(delta: string, text: string): void;
  onToolStart?(event: AiToolStartEvent): void;
  onToolResult?(event: AiToolResultEvent): void;
  /** `ai:event` (8.3): what was loaded for the message, or what an applied series did. */
  onEvent?(event: AiEventPayload): void;
  /** `ai:apply` (8.1, HITL_APPLY=client): an action for the caller to apply. */
  onApply?(event: AiApplyEvent): void;
  onComplete?(event: AiCompleteEvent): void;
  /** `ai:reverted` (docs/protocol.md §9.4): the end of an undo or restore, with what it reverted and refused. */
  onReverted?(event: AiRevertedEvent): void;
  onError?(error: AiRequestError): void;
}

export type AiRequestStatus = 'running' | 'rejoining' | 'completed' | 'failed';

/**
 * One request (`ai:chat`, `ai:resume`, `ai:rejoin`, `ai:undo` or `ai:restore`) and its events, created by
 * AiChatClient. Events
 * with a `seq` at or below the last one seen are replays already handled, and are dropped.
 */
export class AiRequest {
  threadId: string | null;
  /** The highest `seq` received (docs/protocol.md §8.7); 0 until the service sends one. */
  lastSeq: number;
  /** Everything received so far (not coalesced). */
  text = '';
  status: AiRequestStatus = 'running';
  readonly done: Promise<AiRequestOutcome>;

  private renderedText = '';
  private seesSequence = false;
  private settle!: (outcome: AiRequestOutcome) => void;
  private rejoinTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly coalescer: TokenCoalescer;

  constructor(
    readonly id: number,
    readonly kind: AiRequestKind,
    private readonly handlers: AiRequestHandlers,
    coalesceMs: number,
    private readonly stopper: (request: AiRequest) => void,
    start: { threadId?: string; lastSeq?: number } = {},
  ) {
    this.threadId = start.threadId ?? null;
    this.lastSeq = start.lastSeq ?? 0;
    this.done = new Promise((resolve) => (this.settle = resolve));
    this.coalescer = new TokenCoalescer(coalesceMs, (delta) => {
      this.renderedText += delta;
      this.handlers.onText?.(delta, this.renderedText);
    });
  }

  get isActive(): boolean {
    return this.status === 'running' || this.status === 'rejoining';
  }

  /**
   * Can it be picked up again after a reconnect? Only a generation (an undo or restore is not kept for `ai:rejoin`,
   * which would replay the thread's latest run instead), when the service numbers its events (8.7) and the thread is
   * known.
   */
  get canRejoin(): boolean {
    return this.kind !== 'undo' && this.kind !== 'restore' && this.seesSequence && this.threadId !== null;
  }

  /** Stops the generation (`ai:interrupt`); the request then ends with `ai:complete { aborted: true }`. */
  stop(): void {
    if (this.isActive) this.stopper(this);
  }

  /** Handles one server event addressed to this request. */
  receive(event: string, payload: { _id: number | null; seq?: number }): void {
    if (!this.isActive) return;
    if (payload.seq !== undefined) {
      if (payload.seq <= this.lastSeq) return;
      this.lastSeq = payload.seq;
      this.seesSequence = true;
    }
    this.clearRejoinTimer();
    if (this.status === 'rejoining') this.status = 'running';
    switch (event) {
      case 'ai:thread':
        this.threadId = (payload as AiThreadEvent).threadId;
        this.handlers.onThread?.(payload as AiThreadEvent);
        return;
      case 'ai:token': {
        const token = (payload as AiTokenEvent).token;
        this.text += token;
        this.handlers.onToken?.(payload as AiTokenEvent);
        this.coalescer.push(token);
        return;
      }
      case 'ai:tool_start':
        this.coalescer.flush();
        this.handlers.onToolStart?.(payload as AiToolStartEvent);
        return;
      case 'ai:tool_result':
        this.coalescer.flush();
        this.handlers.onToolResult?.(payload as AiToolResultEvent);
        return;
      case 'ai:event':
        this.coalescer.flush();
        this.handlers.onEvent?.(payload as AiEventPayload);
        return;
      case 'ai:apply':
        this.coalescer.flush();
        this.handlers.onApply?.(payload as AiApplyEvent);
        return;
      case 'ai:complete':
        this.complete(payload as AiCompleteEvent);
        return;
      case 'ai:reverted':
        this.reverted(payload as AiRevertedEvent);
        return;
      case 'ai:error': {
        const { code, error, retryable } = payload as AiErrorEvent;
        this.fail({ code, error, retryable, fromServer: true });
        return;
      }
    }
  }

  /** Waits (at most `timeoutMs`) for a rejoin to deliver an event; fails with `error` otherwise. */
  awaitRejoin(timeoutMs: number, error: AiRequestError): void {
    this.coalescer.flush();
    this.status = 'rejoining';
    this.clearRejoinTimer();
    this.rejoinTimer = setTimeout(() => this.fail(error), timeoutMs);
  }

  fail(error: AiRequestError): void {
    if (!this.isActive) return;
    this.coalescer.flush();
    this.clearRejoinTimer();
    this.status = 'failed';
    this.handlers.onError?.(error);
    this.settle({ type: 'error', error });
  }

  private complete(event: AiCompleteEvent): void {
    this.threadId = event.threadId;
    // fullText is authoritative: it holds every token, including any a reconnect made us miss.
    if (event.fullText.length > this.text.length && event.fullText.startsWith(this.text)) {
      this.coalescer.push(event.fullText.slice(this.text.length));
    }
    this.text = event.fullText;
    this.coalescer.flush();
    this.clearRejoinTimer();
    this.status = 'completed';
    this.handlers.onComplete?.(event);
    this.settle({ type: 'complete', event });
  }

  private reverted(event: AiRevertedEvent): void {
    this.threadId = event.threadId;
    this.coalescer.flush();
    this.clearRejoinTimer();
    this.status = 'completed';
    this.handlers.onReverted?.(event);
    this.settle({ type: 'reverted', event });
  }

  private clearRejoinTimer(): void {
    if (this.rejoinTimer !== undefined) clearTimeout(this.rejoinTimer);
    this.rejoinTimer = undefined;
  }
}
