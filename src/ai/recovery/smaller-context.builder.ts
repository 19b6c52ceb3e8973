import type { Locale } from '../../config/app-config';
import type { LlmMessage, LlmToolMessage } from '../../conversation/llm-message';
import type { GraphDataSource } from '../../graph/graph-data-source';
import type { GraphRagRetriever } from '../../rag/graph-rag.retriever';
import { generateMessageId } from '../../threads/sortable-id.generator';
import type { PendingInterrupt, ThreadMessage, ThreadRecord } from '../../threads/thread.types';
import type { ContextShrinker } from '../agent/agent-run';
import type { ContextAssembler } from '../context/context.assembler';
import type { PromptLevels } from '../prompts/system-prompt.builder';

/** How much smaller the retry's context is than the first attempt's: half of each. */
export const CONTEXT_SHRINK_FACTOR = 0.5;

export interface SmallerContextOptions {
  locale: Locale;
  /** RAG_MAX_NODES, and the retriever's truncation of each node's `process` and `data`. */
  maxNodes: number;
  truncateProcess: number;
  truncateData: number;
  /** AI_HISTORY_MAX_TOKENS. */
  historyMaxTokens: number;
}

export interface SmallerContextRequest {
  dataSource: GraphDataSource;
  thread: ThreadRecord;
  /** The question the context is retrieved for (a resume: the thread's last user message). */
  question: string;
  mentions?: string[];
  /** The request's prompt levels, handed to the HistoryStrategy. */
  levels?: PromptLevels | null;
}

/**
 * The smaller context of a context-length retry: the
 * question's context retrieved again with half the nodes and half the text kept per node, and the
 * history rebuilt by the HistoryStrategy with half the token budget. Nothing is stored: the thread
 * keeps the context it was answered from the first time.
 */
export class SmallerContextBuilder {
  constructor(
    private readonly retriever: GraphRagRetriever,
    /** How every request's messages are assembled (history within a token budget, memory, the current context). */
    private readonly assembler: ContextAssembler,
    private readonly options: SmallerContextOptions,
  ) {}

  /** The loop's ContextShrinker for one request: the smaller context, without the results a resume answers itself. */
  shrinkerFor(request: SmallerContextRequest, pending?: PendingInterrupt): ContextShrinker {
    return new SmallerContextShrinker(this, request, pending);
  }

  async build(request: SmallerContextRequest): Promise<LlmMessage[]> {
    const { thread } = request;
    const shrink = (value: number) => Math.max(1, Math.floor(value * CONTEXT_SHRINK_FACTOR));
    const { message } = await this.retriever.retrieveWithMessage(
      request.dataSource,
      thread.graphKey,
      request.question,
      {
        mentions: request.mentions,
        locale: this.options.locale,
        maxNodes: shrink(this.options.maxNodes),
        truncateProcess: shrink(this.options.truncateProcess),
        truncateData: shrink(this.options.truncateData),
      },
    );
    const now = Date.now();
    const context: ThreadMessage = {
      id: generateMessageId(now),
      role: 'system',
      kind: 'rag_context',
      content: message,
      createdTime: now,
      threadId: thread.threadId,
    };
    const assembled = await this.assembler.assemble({
      levels: request.levels ?? null,
      thread,
      currentContext: context,
      maxTokens: shrink(this.options.historyMaxTokens),
    });
    return assembled.messages;
  }
}

/** One request's smaller context, asked for by the loop after a `context_length` refusal. */
class SmallerContextShrinker implements ContextShrinker {
  constructor(
    private readonly builder: SmallerContextBuilder,
    private readonly request: SmallerContextRequest,
    private readonly pending?: PendingInterrupt,
  ) {}

  async shrink(): Promise<LlmMessage[]> {
    const messages = await this.builder.build(this.request);
    return this.pending ? withoutPendingResults(messages, this.pending) : messages;
  }
}

/**
 * The history sanitizer gives every unanswered call a placeholder result; on resume the pending call and the rest
 * of its batch are answered by the run itself, so their placeholders (the trailing tool messages) go.
 */
export function withoutPendingResults(messages: LlmMessage[], pending: PendingInterrupt): LlmMessage[] {
  const ids = new Set([pending.interrupt.toolCallId, ...pending.remainingToolCalls.map((call) => call.id)]);
  const result = [...messages];
  while (result.length > 0) {
    const last = result[result.length - 1];
    if (last.role !== 'tool' || !ids.has((last as LlmToolMessage).tool_call_id)) break;
    result.pop();
  }
  return result;
}
