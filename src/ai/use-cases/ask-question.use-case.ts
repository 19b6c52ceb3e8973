import type { Principal } from '../../auth/principal';
import type { AppConfig } from '../../config/app-config';
import { deriveThreadTitle } from '../../threads/thread-title';
import type { AgentEventSink } from '../agent/agent-event.sink';
import type { AgentResult } from '../agent/agent-result';
import type { ChatInput } from '../chat-input';
import { checkMentions, checkSegments, checkText } from '../chat-input.checks';
import { linearTextOf, segmentsOf } from '../blocks/linear-text';
import { AppError } from '../../errors/app-error';
import type { QuestionRun } from '../runs/question.run';

/**
 * Starting or continuing a conversation (POST /api/ai/chat, `ai:chat`): one question of the principal on a graph of
 * their workspace, on a new thread (titled from the message) or one of theirs. A rich message's `segments` follow its
 * `message` (docs/protocol.md §9.6): the model reads their linear text, the thread stores them all. Throws, before
 * anything runs, bad_request / payload_too_large (message, segments, mentions: node keys; the linear text is what
 * MESSAGE_MAX_CHARS bounds), not_found (graph absent from the workspace; thread
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
    const segments =
      input.segments === undefined ? undefined : segmentsOf(input.message, checkSegments(input.segments));
    if (input.message === undefined && segments === undefined)
      throw AppError.badRequest('message or segments is required');
    const message = checkText(
      this.config,
      segments ? linearTextOf(segments) : (input.message as string),
      'message',
      true,
    );
    const mentions = checkMentions(input.mentions);
    return this.questions.run({
      kind: 'chat',
      acting: { principal },
      graphKey: input.graphKey,
      threadId: input.threadId,
      title: deriveThreadTitle(message),
      message,
      ...(segments ? { segments } : {}),
      mentions,
      multitaskStrategy: input.multitaskStrategy,
      sink,
      signal,
    });
  }
}
