import type { LlmMessage, LlmSystemMessage } from '../../conversation/llm-message';
import type { MemoryContextBuilder } from '../../memory/memory-context.builder';
import type { RecalledMemory } from '../../memory/recall/memory.recaller';
import { type CountTokens, estimateTokens } from '../../providers/token-estimate';
import { buildLlmHistory } from '../../threads/history/llm-history.builder';
import { currentContextIndex, isSystemPrompt } from '../../threads/history/rag-context.locator';
import type { ThreadMessage, ThreadRecord } from '../../threads/thread.types';
import type { PromptLevels } from '../prompts/system-prompt.builder';

export interface ContextAssemblyOptions {
  /** AI_HISTORY_MAX_TOKENS: what the whole prompt (levels, summaries, history, per-message data) may take. */
  maxTokens: number;
  countTokens: CountTokens;
}

export interface ContextAssemblyRequest {
  /** The stable levels 1-3 (null: the graph is gone, the thread's stored startup prompt stands in). */
  levels: PromptLevels | null;
  thread: ThreadRecord;
  /** The context retrieved for the current question (a chat); a resume uses the stored one. */
  currentContext?: ThreadMessage;
  /** A smaller budget than AI_HISTORY_MAX_TOKENS (a context-length retry). */
  maxTokens?: number;
  signal?: AbortSignal;
}

/** What a request is made of, level by level (ai:dump-prompt prints it; DATA_ADDED reports the recalled part). */
export interface AssembledContext {
  messages: LlmMessage[];
  /** Where the question's events end in `messages` (an event written after assembling goes there). */
  afterQuestion: number;
  /** Estimated tokens per part of the prompt. */
  tokens: {
    instructions: number;
    workspace: number;
    graphState: number;
    summaries: number;
    history: number;
    recalled: number;
    perMessage: number;
  };
  turnsLeftOut: number;
  recalled: RecalledMemory[];
}

/**
 * Assembles every request the agent sends from the four prompt levels, the stable part first:
 *
 *   [1 instructions] [2 workspace types] [3 graph state]  — each closed by a cache breakpoint
 *   [summaries standing for the turns left out]            — only when the history no longer fits
 *   [history: the turns kept, tool calls paired with their results]  — its last message closed by a breakpoint
 *   [the question, its events] [4 per-message data: recalled memory, the retrieved context] [this run's rounds]
 *
 * The question comes before its data so that the next request, whose history holds the question and
 * its events but not this context, shares the prefix up to them.
 *
 * Nothing appears twice: the stored startup prompt is replaced by the fresh levels, earlier
 * questions' contexts are never sent again (their answers are in the history), and recall never
 * brings back a turn still in the history or a summary already shown. Levels 1-3 and the history are
 * byte-identical from one request to the next as long as the graph does not change and the history
 * fits (or its cut, at a summary's end, does not move), so providers' prompt caches hit (Anthropic's
 * breakpoints, OpenAI's automatic prefix cache).
 */
export class ContextAssembler {
  constructor(
    private readonly memory: MemoryContextBuilder | null,
    private readonly options: ContextAssemblyOptions,
  ) {}

  async assemble(request: ContextAssemblyRequest): Promise<AssembledContext> {
    const { thread, levels } = request;
    const { countTokens } = this.options;
    const maxTokens = request.maxTokens ?? this.options.maxTokens;
    const stored = thread.messages.filter((message, index) => !isSystemPrompt(message, index));
    const head: LlmSystemMessage[] = levels
      ? [levels.instructions, levels.workspace, levels.graphState].map((content) => ({
          role: 'system',
          content,
          cacheBreakpoint: true,
        }))
      : startupPrompt(thread.messages);
    const headTokens = estimateTokens(head, countTokens);
    const storedContext = currentContextIndex(thread.messages);
    const context = request.currentContext ?? (storedContext === -1 ? undefined : thread.messages[storedContext]);
    const contextTokens = context ? countTokens(context.content ?? '') : 0;

    const lastUser = stored.findLast((message) => message.role === 'user');
    const memory = this.memory
      ? await this.memory.build({
          workspace: thread.workspace,
          threadId: thread.threadId,
          messages: stored,
          question: lastUser?.content ?? '',
          budget: maxTokens - headTokens,
          currentContextTokens: contextTokens,
          signal: request.signal,
        })
      : null;
    const summaries: LlmSystemMessage[] = memory?.summariesBlock
      ? [{ role: 'system', content: memory.summariesBlock }]
      : [];
    const recall: LlmSystemMessage[] = memory?.recallBlock ? [{ role: 'system', content: memory.recallBlock }] : [];
    const extras = estimateTokens([...summaries, ...recall], countTokens);
    const history = buildLlmHistory({
      threadId: thread.threadId,
      messages: memory?.messages ?? stored,
      currentContext: request.currentContext,
      maxTokens: maxTokens - headTokens - extras,
      countTokens,
    }).messages;

    // The question and the events that follow it (its DATA_ADDED), then level 4: recalled memory and the retrieved
    // context (which the history places right before the question), then this run's rounds.
    const question = history.findLastIndex((message) => message.role === 'user');
    const hasContext =
      question > 0 && history[question - 1].role === 'system' && history[question - 1].content === context?.content;
    const earlier = history.slice(0, question === -1 ? history.length : hasContext ? question - 1 : question);
    if (earlier.length > 0) earlier[earlier.length - 1] = { ...earlier[earlier.length - 1], cacheBreakpoint: true };
    let afterEvents = question + 1;
    while (question !== -1 && history[afterEvents]?.role === 'system') afterEvents += 1;
    const asked = question === -1 ? [] : history.slice(question, afterEvents);
    const level4 = [...recall, ...(hasContext ? [history[question - 1]] : [])];
    const rounds = question === -1 ? [] : history.slice(afterEvents);
    const [instructions, workspace, graphState] = levels
      ? head.map((message) => estimateTokens([message], countTokens))
      : [headTokens, 0, 0];
    const messages = [...head, ...summaries, ...earlier, ...asked, ...level4, ...rounds];
    return {
      messages,
      afterQuestion: head.length + summaries.length + earlier.length + asked.length,
      tokens: {
        instructions,
        workspace,
        graphState,
        summaries: estimateTokens(summaries, countTokens),
        history: estimateTokens(earlier, countTokens),
        recalled: estimateTokens(recall, countTokens),
        perMessage: estimateTokens([...asked, ...level4, ...rounds], countTokens),
      },
      turnsLeftOut: memory?.turnsLeftOut ?? 0,
      recalled: memory?.recalled ?? [],
    };
  }
}

/** A thread whose graph is gone keeps talking with the prompt it started with. */
function startupPrompt(messages: readonly ThreadMessage[]): LlmSystemMessage[] {
  const prompt = messages.find((message, index) => isSystemPrompt(message, index));
  return prompt ? [{ role: 'system', content: prompt.content ?? '', cacheBreakpoint: true }] : [];
}
