import type { ApplyRequest } from '../actions/checked-action';
import type { ThreadEvent } from '../../conversation/thread-event';
import type { AgentEventSink } from './agent-event.sink';
import type { AgentResult } from './agent-result';

/**
 * A sink that holds a question's first events (`thread`, then its DATA_ADDED `event`) until
 * `release()`, and always sends them, in order, before anything else it is given (a token, a tool
 * event, the end). QuestionRun releases them in the turn of the event loop after the one in which
 * undici writes the upstream request: sending them (two socket writes, ~0.1 ms at one conversation) then
 * no longer delays the request, and the client still gets `ai:thread` first and the event before the
 * first token.
 */
export class HeldEventsSink implements AgentEventSink {
  private held: Array<() => void> | null = [];

  constructor(private readonly target: AgentEventSink) {}

  /** Sends what is held; from now on everything goes through at once. Idempotent. */
  release(): void {
    const held = this.held;
    if (held === null) return;
    this.held = null;
    for (const send of held) send();
  }

  thread(threadId: string): void {
    this.hold(() => this.target.thread(threadId));
  }

  event(event: ThreadEvent): void {
    this.hold(() => this.target.event(event));
  }

  leased(threadId: string): void {
    this.target.leased?.(threadId);
  }

  token(text: string): void {
    this.release();
    this.target.token(text);
  }

  toolStart(toolCallId: string, toolName: string, rawArguments?: string): void {
    this.release();
    this.target.toolStart(toolCallId, toolName, rawArguments);
  }

  toolResult(toolCallId: string, result: string): void {
    this.release();
    this.target.toolResult(toolCallId, result);
  }

  apply(action: ApplyRequest): void {
    this.release();
    this.target.apply(action);
  }

  complete(result: AgentResult): void {
    this.release();
    this.target.complete(result);
  }

  private hold(send: () => void): void {
    if (this.held === null) send();
    else this.held.push(send);
  }
}
