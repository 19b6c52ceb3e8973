import type { Locale } from '../../config/app-config';
import type { LlmMessage } from '../../conversation/llm-message';
import type { GraphDataSource } from '../../graph/graph-data-source';
import type { GraphRagRetriever } from '../../rag/graph-rag.retriever';
import { generateMessageId } from '../../threads/sortable-id.generator';
import type { ThreadMessage, ThreadRecord } from '../../threads/thread.types';
import type { PromptLevels } from '../prompts/system-prompt.builder';

/**
 * What the model is sent first for a thread, within a token budget: the history (turns that do not
 * fit left out, or replaced by memory summaries where memory exists) and the current question's
 * context. ChatService builds every request with it, and a context-length retry with half the
 * budget: the pluggable "shrink history" step (docs/agent.md, "Context-length recovery").
 */
export type HistoryStrategy = (
  thread: ThreadRecord,
  currentContext: ThreadMessage | undefined,
  maxTokens: number,
  /** The stable prompt levels of the request (docs/agent.md, "Prompt levels"); null: the thread's stored prompt. */
  levels?: PromptLevels | null,
) => Promise<LlmMessage[]>;

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
 * The smaller context of a context-length retry (docs/agent.md, "Context-length recovery"): the
 * question's context retrieved again with half the nodes and half the text kept per node, and the
 * history rebuilt by the HistoryStrategy with half the token budget. Nothing is stored: the thread
 * keeps the context it was answered from the first time.
 */
export class SmallerContextBuilder {
  constructor(
    private readonly retriever: GraphRagRetriever,
    private readonly history: HistoryStrategy,
    private readonly options: SmallerContextOptions,
  ) {}

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
    return this.history(thread, context, shrink(this.options.historyMaxTokens), request.levels);
  }
}
