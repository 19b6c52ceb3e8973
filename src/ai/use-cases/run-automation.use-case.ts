import type { AgentEventSink } from '../agent/agent-event.sink';
import type { AgentResult } from '../agent/agent-result';
import type { AutomationRunInput } from '../chat-input';
import type { QuestionRun } from '../runs/question.run';

/**
 * An automation's run: a new thread of type `automation` owned by the automation's creator,
 * asked the resolved prompt through the same question run, loop, policy and budgets as a chat, with no socket (`sink`
 * is the automation runner's), acting as the run's identity. The provider is the
 * automation's own configuration, else the workspace's active one. Throws as a chat does.
 */
export class RunAutomation {
  constructor(private readonly questions: QuestionRun) {}

  execute(input: AutomationRunInput, sink: AgentEventSink, signal: AbortSignal): Promise<AgentResult> {
    return this.questions.run({
      kind: 'automation',
      acting: input.acting,
      graphKey: input.graphKey,
      title: input.title,
      origin: { type: 'automation', automationId: input.acting.automation.automationId },
      message: input.prompt,
      mentions: [],
      providerConfigId: input.providerConfigId,
      budget: input.budget,
      unattended: true,
      sink,
      signal,
    });
  }
}
