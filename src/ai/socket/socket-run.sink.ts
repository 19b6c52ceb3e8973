import type { ThreadEvent } from '../../conversation/thread-event';
import type { TraceContext } from '../../observability/tracing/gen-ai.tracer';
import type { ApplyRequest } from '../actions/checked-action';
import type { AgentEventSink } from '../agent/agent-event.sink';
import type { AgentResult } from '../agent/agent-result';
import type { GenerationProgress } from '../runs/active-run.registry';
import type { RunEventName, RunEventWriter } from '../runs/run-event.log';
import type { AiEventTarget } from './ai-server-socket';
import type { AiErrorEvent, AiRevertedEvent, AiServerToClientEvents } from './ai-socket.events';
import type { TokenFlushScheduler } from './token-flush.scheduler';
import { TokenTextCoalescer } from './token-text.coalescer';

/** What an event of a request carries besides `_id` and `seq`. */
export type RunEventPayload<E extends RunEventName> = Omit<Parameters<AiServerToClientEvents[E]>[0], '_id' | 'seq'>;

/** A log that keeps nothing (specs of the sink alone). */
const UNLOGGED: RunEventWriter = { append: () => undefined, markLatest: () => undefined };

/**
 * One socket request's events as `ai:*` messages. Tokens are coalesced: buffered
 * and sent by the shared scheduler (at most its interval later), or at once when the buffer reaches
 * `maxBufferChars`; buffered text always goes out before any other event, so the order of the text
 * and the tool events is kept and `fullText` is exactly the concatenation of the `ai:token`s sent.
 * Exactly one terminal event (`ai:complete`, `ai:reverted` or `ai:error`): after it, everything is ignored.
 *
 * Every event carries `seq` (1, 2, 3, …) and goes to the request's event log, which `ai:rejoin` replays:
 * also while its socket is disconnected (AI_DISCONNECT_POLICY=continue), when
 * nothing is sent to the socket itself.
 */
export class SocketRunSink implements AgentEventSink, GenerationProgress {
  threadId: string | null = null;
  leasedThreadId: string | null = null;
  tokensStreamed = 0;
  private readonly text: TokenTextCoalescer;
  private readonly sent: string[] = [];
  private finished = false;
  private seq = 0;

  constructor(
    private readonly socket: AiEventTarget,
    readonly requestId: number,
    scheduler: TokenFlushScheduler,
    maxBufferChars: number,
    private readonly log: RunEventWriter = UNLOGGED,
    /** The trace context of the run at the time it leases its thread (GenAiTracer.activeContext). */
    private readonly runTrace: () => TraceContext | undefined = () => undefined,
  ) {
    this.text = new TokenTextCoalescer(scheduler, maxBufferChars, (text) => {
      this.sent.push(text);
      this.send('ai:token', { token: text });
    });
  }

  /** A terminal event was sent. */
  get isFinished(): boolean {
    return this.finished;
  }

  thread(threadId: string): void {
    if (this.finished) return;
    this.threadId = threadId;
    this.send('ai:thread', { threadId });
  }

  queued(threadId: string): void {
    if (this.finished) return;
    this.send('ai:queued', { threadId });
  }

  /** The run holds its thread: `ai:rejoin` on the thread now finds this request. */
  leased(threadId: string): void {
    this.leasedThreadId = threadId;
    this.log.markLatest(threadId, this.runTrace());
  }

  token(text: string): void {
    if (this.finished || text.length === 0) return;
    this.tokensStreamed++;
    this.text.add(text);
  }

  toolStart(toolCallId: string, toolName: string): void {
    if (this.finished) return;
    this.flushNow();
    this.send('ai:tool_start', { toolCallId, toolName });
  }

  toolResult(toolCallId: string, result: string): void {
    if (this.finished) return;
    this.flushNow();
    this.send('ai:tool_result', { toolCallId, result });
  }

  event(event: ThreadEvent): void {
    if (this.finished || this.threadId === null) return;
    this.flushNow();
    this.send('ai:event', { threadId: this.threadId, event });
  }

  apply(action: ApplyRequest): void {
    if (this.finished || this.threadId === null) return;
    this.flushNow();
    const { operationId, toolCallId, proposedAction, preview, reverts } = action;
    this.send('ai:apply', {
      threadId: this.threadId,
      operationId,
      ...(toolCallId !== undefined ? { toolCallId } : {}),
      ...(proposedAction !== undefined ? { proposedAction } : {}),
      preview,
      ...(reverts !== undefined ? { reverts } : {}),
    });
  }

  /** The terminal event of an undo or restore (`ai:reverted`). */
  reverted(result: Omit<AiRevertedEvent, '_id' | 'seq'>): void {
    if (this.finished) return;
    this.flushNow();
    this.finished = true;
    this.send('ai:reverted', result);
  }

  complete(result: AgentResult): void {
    if (this.finished) return;
    this.flushNow();
    this.finished = true;
    this.send('ai:complete', {
      threadId: result.threadId,
      fullText: this.sent.join(''),
      usage: result.usage,
      ...(result.type === 'interrupt' ? { interrupt: result.interrupt } : {}),
      ...(result.type === 'message' && result.aborted ? { aborted: true as const } : {}),
      ...(result.type === 'message' && result.rolledBack ? { rolledBack: true as const } : {}),
    });
  }

  /** The terminal error (the run threw, or never completed). */
  fail(error: Omit<AiErrorEvent, '_id' | 'seq'>): void {
    if (this.finished) return;
    this.flushNow();
    this.finished = true;
    this.send('ai:error', error);
  }

  /** Numbers the event, logs it, and sends it while the socket is connected. */
  private send<E extends RunEventName>(event: E, payload: RunEventPayload<E>): void {
    const seq = ++this.seq;
    this.log.append({ seq, event, payload });
    if (this.socket.connected)
      (this.socket.emit as (event: E, payload: unknown) => void)(event, { _id: this.requestId, seq, ...payload });
  }

  private flushNow(): void {
    this.text.flushNow();
  }
}
