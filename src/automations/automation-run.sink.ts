import type { AgentEventSink } from '../ai/agent/agent-event.sink';
import type { AgentResult } from '../ai/agent/agent-result';
import type { RunProgress } from '../ai/runs/active-run.registry';

/**
 * Where an automation run's events go: nowhere but its thread (no socket, docs/automations.md). It
 * tells the runner the thread as soon as the run created it, and keeps the run's terminal result.
 */
export class AutomationRunSink implements AgentEventSink, RunProgress {
  threadId: string | null = null;
  tokensStreamed = 0;
  result: AgentResult | null = null;

  constructor(private readonly onThread: (threadId: string) => void) {}

  thread(threadId: string): void {
    this.threadId = threadId;
    this.onThread(threadId);
  }

  token(): void {
    this.tokensStreamed++;
  }

  toolStart(): void {
    // The thread keeps the tool calls; nobody watches live.
  }

  toolResult(): void {
    // As toolStart.
  }

  event(): void {
    // Stored in the thread (DATA_ADDED, ACTIONS_EXECUTED).
  }

  apply(): void {
    // Never called: with HITL_APPLY=client an automation's actions wait for a human (ChatService.runAutomation).
  }

  complete(result: AgentResult): void {
    this.result ??= result;
  }
}
