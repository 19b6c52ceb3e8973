import type { Principal } from '../../auth/principal';
import type { AppConfig } from '../../config/app-config';
import { deriveThreadTitle } from '../../threads/thread-title';
import type { AgentEventSink } from '../agent/agent-event.sink';
import type { AgentResult } from '../agent/agent-result';
import type { ChatInput } from '../chat-input';
import { checkMentions, checkText } from '../chat-input.checks';
import type { QuestionRun } from '../runs/question.run';

/**
 * Starting or continuing a conversation (POST /api/ai/chat, `ai:chat`): one question of the principal on a graph of
 * their workspace, on a new thread (titled from the message) or one of theirs. Throws, before anything runs,
 * bad_request / payload_too_large (message, mentions: node keys), not_found (graph absent from the workspace; thread
 * unknown, someone else's or of another graph), thread_busy (another run holds the thread), budget_exceeded; and while
 * running the classified LLM errors. The rest is the question run's (QuestionRun).
 */
export class AskQuestion {
  constructor(
    private readonly questions: QuestionRun,
    private readonly config: AppConfig,
  ) {}

  async execute(
    principal: Principal,
    input: ChatInput,
    sink: AgentEventSink,
    signal: AbortSignal,
  ): Promise<AgentResult> {
    const message = checkText(this.config, input.message, 'message', true);
    const mentions = checkMentions(input.mentions);
    return this.questions.run({
      kind: 'chat',
      acting: { principal },
      graphKey: input.graphKey,
      threadId: input.threadId,
      title: deriveThreadTitle(message),
      message,
      mentions,
      sink,
      signal,
    });
  }
}
