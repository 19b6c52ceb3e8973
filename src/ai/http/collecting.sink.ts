import { AppError } from '../../errors/app-error';
import type { AgentEventSink } from '../agent/agent-event.sink';
import type { AgentResult } from '../agent/agent-result';
import type { GenerationProgress } from '../runs/active-run.registry';

/**
 * The REST side of a run: nothing is streamed, the run's terminal result is the HTTP answer
 * (AgentResult). Counts fragments and remembers the thread for the logs of a
 * run stopped by a client that went away.
 */
export class CollectingSink implements AgentEventSink, GenerationProgress {
  threadId: string | null = null;
  leasedThreadId: string | null = null;
  tokensStreamed = 0;
  private outcome: AgentResult | null = null;

  thread(threadId: string): void {
    this.threadId = threadId;
  }

  leased(threadId: string): void {
    this.leasedThreadId = threadId;
  }

  token(): void {
    this.tokensStreamed++;
  }

  toolStart(): void {
    // The result lists the tool calls; nothing to forward while running.
  }

  toolResult(): void {
    // As toolStart.
  }

  event(): void {
    // The result lists the events the request wrote (AgentResult.events).
  }

  apply(): void {
    // The result lists the actions for the client to apply (AgentResult.actions).
  }

  complete(result: AgentResult): void {
    this.outcome ??= result;
  }

  /** The AgentResult of the run; `internal` if the run settled without one (a broken contract). */
  result(): AgentResult {
    if (!this.outcome) throw new AppError('internal', 'The run ended without a result');
    return this.outcome;
  }
}
