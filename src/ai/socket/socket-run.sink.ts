import type { ThreadEvent } from '../../conversation/thread-event';
import type { CheckedAction } from '../actions/action.applier';
import type { AgentEventSink } from '../agent/agent-event.sink';
import type { AgentResult } from '../agent/agent-result';
import type { RunProgress } from '../runs/active-run.registry';
import type { AiEventTarget } from './ai-server-socket';
import type { AiErrorEvent } from './ai-socket.events';
import type { Flushable, TokenFlushScheduler } from './token-flush.scheduler';

/**
 * One socket request's events as `ai:*` messages (docs/protocol.md §4). Tokens are coalesced: buffered
 * and sent by the shared scheduler (at most its interval later), or at once when the buffer reaches
 * `maxBufferChars`; buffered text always goes out before any other event, so the order of the text
 * and the tool events is kept and `fullText` is exactly the concatenation of the `ai:token`s sent.
 * Exactly one terminal event (`ai:complete` or `ai:error`): after it, everything is ignored.
 * Nothing is sent to a socket that disconnected (the run is being aborted anyway).
 */
export class SocketRunSink implements AgentEventSink, Flushable, RunProgress {
  threadId: string | null = null;
  tokensStreamed = 0;
  private buffer = '';
  private readonly sent: string[] = [];
  private finished = false;

  constructor(
    private readonly socket: AiEventTarget,
    readonly requestId: number,
    private readonly scheduler: TokenFlushScheduler,
    private readonly maxBufferChars: number,
  ) {}

  /** A terminal event was sent. */
  get isFinished(): boolean {
    return this.finished;
  }

  thread(threadId: string): void {
    if (this.finished) return;
    this.threadId = threadId;
    if (this.socket.connected) this.socket.emit('ai:thread', { _id: this.requestId, threadId });
  }

  token(text: string): void {
    if (this.finished || text.length === 0) return;
    this.tokensStreamed++;
    this.buffer += text;
    if (this.buffer.length >= this.maxBufferChars) {
      this.scheduler.cancel(this);
      this.flush();
    } else {
      this.scheduler.schedule(this);
    }
  }

  toolStart(toolCallId: string, toolName: string): void {
    if (this.finished) return;
    this.flushNow();
    if (this.socket.connected) this.socket.emit('ai:tool_start', { _id: this.requestId, toolCallId, toolName });
  }

  toolResult(toolCallId: string, result: string): void {
    if (this.finished) return;
    this.flushNow();
    if (this.socket.connected) this.socket.emit('ai:tool_result', { _id: this.requestId, toolCallId, result });
  }

  event(event: ThreadEvent): void {
    if (this.finished || this.threadId === null) return;
    this.flushNow();
    if (this.socket.connected) this.socket.emit('ai:event', { _id: this.requestId, threadId: this.threadId, event });
  }

  apply(action: CheckedAction): void {
    if (this.finished || this.threadId === null) return;
    this.flushNow();
    if (this.socket.connected) {
      const { toolCallId, proposedAction, preview } = action;
      this.socket.emit('ai:apply', { _id: this.requestId, threadId: this.threadId, toolCallId, proposedAction, preview });
    }
  }

  complete(result: AgentResult): void {
    if (this.finished) return;
    this.flushNow();
    this.finished = true;
    if (!this.socket.connected) return;
    this.socket.emit('ai:complete', {
      _id: this.requestId,
      threadId: result.threadId,
      fullText: this.sent.join(''),
      usage: result.usage,
      ...(result.type === 'interrupt' ? { interrupt: result.interrupt } : {}),
      ...(result.type === 'message' && result.aborted ? { aborted: true as const } : {}),
    });
  }

  /** The terminal error (the run threw, or never completed). */
  fail(error: Omit<AiErrorEvent, '_id'>): void {
    if (this.finished) return;
    this.flushNow();
    this.finished = true;
    if (this.socket.connected) this.socket.emit('ai:error', { _id: this.requestId, ...error });
  }

  /** Sends the buffered text as one ai:token (called by the scheduler). */
  flush(): void {
    if (this.buffer.length === 0) return;
    const text = this.buffer;
    this.buffer = '';
    this.sent.push(text);
    if (this.socket.connected) this.socket.emit('ai:token', { _id: this.requestId, token: text });
  }

  private flushNow(): void {
    if (this.buffer.length === 0) return;
    this.scheduler.cancel(this);
    this.flush();
  }
}
