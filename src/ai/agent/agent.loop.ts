import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Locale } from '../../config/app-config';
import { AppError } from '../../errors/app-error';
import { AiEventLogger } from '../../observability/ai-event.logger';
import { isAiDebugEnabled, Logger } from '../../observability/logger';
import { GenAiTracer, TraceSpan } from '../../observability/tracing/gen-ai.tracer';
import {
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  genAiCallAttributes,
  genAiContentAttributes,
  genAiToolAttributes,
  genAiUsageAttributes,
} from './gen-ai.attributes';
import { isAbortError } from '../../providers/llm-abort.error';
import { LlmErrorClassifier } from '../../providers/llm-error.classifier';
import {
  LlmAssistantMessage,
  LlmMessage,
  LlmToolCall,
  LlmToolDefinition,
  LlmToolMessage,
} from '../../conversation/llm-message';
import { LlmProvider } from '../../providers/llm-provider';
import { LlmUsage, ZERO_LLM_USAGE } from '../../providers/llm-usage';
import { TokenTracker } from '../../providers/token.tracker';
import { TokenLimitError } from '../../providers/token-limit.error';
import { approximateTokens, estimateTokens, estimateToolTokens } from '../../providers/token-estimate';
import { TokenCounter } from '../../rag/token-counter';
import { renderThreadEvent } from '../../threads/history/thread-event.renderer';
import { assertThreadIsolation } from '../../threads/history/thread-isolation.guard';
import type { PendingInterrupt } from '../../threads/thread.types';
import { ToolCallSummary } from './agent-result';
import {
  AgentCommit,
  AgentCommitReceipt,
  AgentRunOutcome,
  AgentRunRequest,
  AgentRunStats,
  RunWrites,
} from './agent-run';
import { LOOP_NOTES, LoopNotes } from './loop-notes.texts';
import { RunConversation } from './run-conversation';
import { RoundReport, SmartStopping } from './smart-stopping';
import { recentMessagesTrace } from './run-trace';
import { autonomousResultContent, toolErrorContent } from './tool-result.message';

export interface AgentLoopDependencies {
  provider: LlmProvider;
  tokenTracker: TokenTracker;
  tokenCounter: TokenCounter;
  classifier: LlmErrorClassifier;
  events?: AiEventLogger;
  now?: () => number;
  /** Spans of the upstream calls and tool calls (none by default). */
  tracer?: GenAiTracer;
}

export interface AgentLoopOptions {
  /** Rounds whose tool calls are executed (AI_MAX_TOOL_ROUNDS); then one last call without tools. */
  maxToolRounds: number;
  /** AI_MAX_TOKENS_PER_CALL (0: no limit): a call whose estimated prompt (approximateTokens) alone exceeds it is not made. */
  maxTokensPerCall?: number;
  /** Language of user-facing error messages and of the loop's notes to the model (AI_LOCALE). */
  locale?: Locale;
  /** AI_MAX_TOOL_CALLS_PER_REPLY: the calls of one reply beyond it get an error result, unrun. Default 10. */
  maxToolCallsPerReply?: number;
  /** AI_NO_PROGRESS_ROUNDS: tool rounds in a row that bring nothing new before the run stops calling tools. Default 3. */
  noProgressRounds?: number;
}

export const DEFAULT_MAX_TOOL_CALLS_PER_REPLY = 10;
export const DEFAULT_NO_PROGRESS_ROUNDS = 3;

/** What one upstream call produced. */
interface CallResult {
  text: string;
  toolCalls: LlmToolCall[];
  aborted: boolean;
}

/** The results of a batch of tool calls, and the proposal that stopped it, if any. */
interface BatchResult {
  results: LlmToolMessage[];
  pending: PendingInterrupt | null;
  /** What the batch brought, for smart stopping. */
  progress: RoundReport;
}

/** Emits the run's text and remembers it; rounds' texts are separated by a blank line. */
class RunText {
  full = '';
  private roundHasText = false;

  constructor(private readonly emit: (text: string) => void) {}

  startRound(): void {
    this.roundHasText = false;
  }

  append(token: string): void {
    if (!token) return;
    if (!this.roundHasText && this.full.length > 0 && !/\s$/.test(this.full)) this.write('\n\n');
    this.roundHasText = true;
    this.write(token);
  }

  private write(text: string): void {
    this.full += text;
    this.emit(text);
  }
}

/** Everything one run keeps while it goes (never shared between runs). */
interface RunState {
  request: AgentRunRequest;
  conversation: RunConversation;
  text: RunText;
  summaries: ToolCallSummary[];
  progress: SmartStopping;
  rounds: number;
  toolResults: number;
  /** Commits made so far: the next one is `<agentRunId>:<commits>`. */
  commits: number;
  /** The one context-length retry of the run was spent. */
  shrunk: boolean;
  /** Events committed and actions handed to the client (the action policy's autonomous applies). */
  writes: RunWrites;
}

/** The English notes, for tests and tools that read them (the run sends those of its locale). */
export const TOOL_ROUNDS_SPENT_NOTE = LOOP_NOTES.en.roundsSpent;
export const NO_PROGRESS_NOTE = LOOP_NOTES.en.noProgress;
/**
 * Longest completion (text + tool calls streamed before an abort) counted with the tokenizer: ~2-10 ms.
 * Longer ones, or any before the tokenizer is loaded, are estimated from their length, so a mass
 * disconnect never stalls the process.
 */
const COMPLETION_COUNT_MAX_CHARS = 2_000;

/**
 * The tool-calling loop, one implementation for REST and Socket.IO: streams
 * each upstream call (tokens to the events), executes read tools, stops at the first valid write
 * call with an interrupt, and commits every round before the next call. Pure: no Nest, no
 * transport, no store; the caller persists commits, owns the thread and the sink's terminal event.
 *
 * A run makes at most maxToolRounds + 1 upstream calls (+ 1 retry with a smaller context after a
 * `context_length` refusal): after maxToolRounds rounds whose tool calls were executed, or as soon
 * as its rounds stop bringing anything new (smart stopping, SmartStopping), one final call without
 * tools so the user always gets an answer. Before each call the messages are checked to belong to
 * the run's thread; each call is traced (round, operation id, replays, whether its commit applied).
 */
export class AgentLoop {
  private readonly events: AiEventLogger;
  private readonly logger = new Logger('agent');
  private readonly now: () => number;
  private readonly notes: LoopNotes;
  private readonly maxToolCallsPerReply: number;
  private readonly noProgressRounds: number;
  private readonly locale: Locale;

  constructor(
    private readonly deps: AgentLoopDependencies,
    private readonly options: AgentLoopOptions,
  ) {
    this.events = deps.events ?? new AiEventLogger('agent');
    this.now = deps.now ?? Date.now;
    this.locale = options.locale ?? 'en';
    this.notes = LOOP_NOTES[this.locale] ?? LOOP_NOTES.en;
    this.maxToolCallsPerReply = options.maxToolCallsPerReply ?? DEFAULT_MAX_TOOL_CALLS_PER_REPLY;
    this.noProgressRounds = options.noProgressRounds ?? DEFAULT_NO_PROGRESS_ROUNDS;
  }

  async run(request: AgentRunRequest): Promise<AgentRunOutcome> {
    const state: RunState = {
      request,
      conversation: new RunConversation(request.messages, request.threadId),
      text: new RunText((token) => request.events.token(token)),
      summaries: [],
      progress: new SmartStopping(this.noProgressRounds),
      rounds: 0,
      toolResults: 0,
      commits: 0,
      shrunk: false,
      writes: { events: [], actions: [] },
    };

    if (request.continuation) {
      const { remainingToolCalls, firstCallIndex } = request.continuation;
      // The calls after the interrupting one belong to its reply: the yes just given does not cover them.
      const batch = await this.processToolCalls(remainingToolCalls, state, firstCallIndex);
      const appended = [
        ...request.continuation.results.map((result) => state.conversation.own(result)),
        ...batch.results,
      ];
      state.toolResults += request.continuation.results.filter((result) => result.success).length;
      const last = batch.pending !== null || request.continuation.final === true;
      await this.commit(state, {
        messages: appended,
        pendingInterrupt: batch.pending,
        ...(last ? { last: true as const } : {}),
      });
      if (batch.pending) return this.interrupted(state, batch.pending);
      if (request.continuation.final) return this.finished(state, 'answer');
    }

    const offered = request.tools.definitions;
    for (let round = 0; ; round += 1) {
      if (request.signal.aborted) return this.finished(state, 'aborted');
      const canUseTools = offered.length > 0 && !this.providerOf(request).offline;
      const spent = round >= this.options.maxToolRounds;
      const withTools = canUseTools && !spent && !state.progress.shouldStop;
      // The last call is told why it has no tools; the note is sent, never stored.
      const note =
        canUseTools && !withTools ? (state.progress.shouldStop ? this.notes.noProgress : this.notes.roundsSpent) : null;
      const operationId = this.nextOperationId(state);
      const call = await this.callWithRecovery(state, round, operationId, note, withTools ? offered : undefined);

      if (call.aborted) {
        if (call.text.length > 0) {
          const receipt = await this.commit(state, {
            messages: [state.conversation.own({ role: 'assistant', content: call.text })],
            aborted: true,
          });
          this.traceRound(state, round, operationId, receipt, 0);
        }
        return this.finished(state, 'aborted');
      }
      if (!withTools || call.toolCalls.length === 0) {
        if (call.toolCalls.length > 0) {
          this.events.debug('llm_call_done', { ignoredToolCalls: call.toolCalls.length, reason: 'no tools offered' });
        }
        const receipt = await this.commit(state, {
          messages: [state.conversation.own({ role: 'assistant', content: call.text })],
          last: true,
        });
        this.traceRound(state, round, operationId, receipt, 0);
        const reason =
          !canUseTools || withTools
            ? 'answer'
            : state.progress.shouldStop
              ? 'no_progress'
              : round > 0
                ? 'rounds_spent'
                : 'answer';
        return this.finished(state, reason);
      }

      const assistant: LlmAssistantMessage = state.conversation.own({
        role: 'assistant',
        content: call.text.length > 0 ? call.text : null,
        tool_calls: call.toolCalls,
      });
      request.tools.beginReply();
      const batch = await this.processToolCalls(call.toolCalls, state, 0);
      state.rounds += 1;
      const appended: LlmMessage[] = [assistant, ...batch.results];
      const receipt = await this.commit(
        state,
        batch.pending ? { messages: appended, pendingInterrupt: batch.pending, last: true } : { messages: appended },
      );
      this.traceRound(state, round, operationId, receipt, call.toolCalls.length);
      if (batch.pending) return this.interrupted(state, batch.pending);
      if (state.progress.endRound(batch.progress)) {
        this.logger.info('agent_no_progress', {
          threadId: request.threadId,
          agentRunId: request.agentRunId,
          round,
          repeatedCalls: batch.progress.repeated,
          roundsWithoutProgress: state.progress.roundsWithoutProgress,
        });
      }
    }
  }

  /** An `execute_tool` span around one tool call the service runs (with its payload only when content is captured). */
  private traceTool<T>(
    call: LlmToolCall,
    toolName: string,
    request: AgentRunRequest,
    run: (span: TraceSpan) => Promise<T>,
  ): Promise<T> {
    const tracer = this.deps.tracer ?? GenAiTracer.disabled;
    if (!tracer.enabled) return run({ set: () => undefined, fail: () => undefined });
    return tracer.executeTool(
      toolName,
      {
        ...genAiToolAttributes(call, toolName, request.threadId),
        ...(tracer.captureContent ? { [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: call.function.arguments } : {}),
      },
      run,
    );
  }

  /** The run's own provider (a workspace's configuration), else the loop's. */
  private providerOf(request: AgentRunRequest): LlmProvider {
    return request.provider ?? this.deps.provider;
  }

  private nextOperationId(state: RunState): string {
    return `${state.request.agentRunId}:${state.commits}`;
  }

  /**
   * Commits a round under the run's next operation id, with the ACTIONS_EXECUTED events of what it
   * applied (stored after its messages); then the round and those events are what the model sees next.
   * While a batch waits for an answer its events stay out of the model's messages,
   * which must end with the batch's results for the resume (as history building does).
   */
  private async commit(state: RunState, round: AgentCommit): Promise<AgentCommitReceipt> {
    const { request, conversation, writes } = state;
    const operationId = this.nextOperationId(state);
    state.commits += 1;
    const events = request.proposals.takeEvents();
    const receipt = await request.rounds.commit({
      ...(events.length > 0 ? { ...round, events } : round),
      operationId,
    });
    conversation.add(round.messages);
    for (const event of events) {
      writes.events.push(event);
      request.events.event(event);
      if (!round.pendingInterrupt)
        conversation.add([conversation.own({ role: 'system', content: renderThreadEvent(event) })]);
    }
    return receipt ?? { applied: true, replays: 0 };
  }

  /**
   * One line per upstream call at debug level: its
   * round, the operation id its round was committed under, how often that commit was replayed after
   * a revision conflict, and whether it applied (false: an idempotent replay wrote nothing twice).
   */
  private traceRound(
    state: RunState,
    round: number,
    operationId: string,
    receipt: AgentCommitReceipt | null,
    toolCalls: number,
    error?: string,
  ): void {
    this.logger.debug('llm_round', {
      threadId: state.request.threadId,
      agentRunId: state.request.agentRunId,
      round,
      operationId,
      replayIndex: receipt?.replays ?? 0,
      committed: receipt !== null,
      applied: receipt?.applied ?? false,
      toolCalls,
      ...(error ? { error } : {}),
    });
  }

  private finished(state: RunState, reason: 'answer' | 'no_progress' | 'rounds_spent' | 'aborted'): AgentRunOutcome {
    return {
      type: 'message',
      text: state.text.full,
      toolCalls: state.summaries,
      aborted: reason === 'aborted',
      stats: this.stats(state, reason),
      ...state.writes,
    };
  }

  private interrupted(state: RunState, pending: PendingInterrupt): AgentRunOutcome {
    return {
      type: 'interrupt',
      text: state.text.full,
      toolCalls: state.summaries,
      interrupt: pending.interrupt,
      pending,
      stats: this.stats(state, 'interrupt'),
      ...state.writes,
    };
  }

  private stats(state: RunState, stopReason: AgentRunStats['stopReason']): AgentRunStats {
    return { stopReason, rounds: state.rounds, toolResults: state.toolResults };
  }

  /**
   * One upstream call, retried once with a smaller context when the upstream answers
   * `context_length`: the caller's first messages rebuilt
   * smaller (fewer retrieved nodes, shorter texts, less history) and this run's tool results cut
   * shorter, from then on. A second refusal, or no smaller context, fails the run with it.
   */
  private async callWithRecovery(
    state: RunState,
    round: number,
    operationId: string,
    note: string | null,
    tools: readonly LlmToolDefinition[] | undefined,
  ): Promise<CallResult> {
    const { request } = state;
    const failed = (error: unknown): unknown => {
      this.traceRound(state, round, operationId, null, 0, error instanceof AppError ? error.code : 'internal');
      return error;
    };
    try {
      return await this.callModel(state.conversation.forCall(note), tools, state, round, operationId);
    } catch (error) {
      const recoverable =
        error instanceof AppError && error.code === 'context_length' && !state.shrunk && request.shrinker;
      if (!recoverable) throw failed(error);
      state.shrunk = true;
      const before = estimateTokens(state.conversation.forCall(note));
      const smaller = await request.shrinker!.shrink();
      if (!smaller) throw failed(error);
      state.conversation.shrink(smaller);
      const after = estimateTokens(state.conversation.forCall(note));
      this.logger.warn('context_length_retry', {
        threadId: request.threadId,
        agentRunId: request.agentRunId,
        round,
        estimatedTokensBefore: before,
        estimatedTokensAfter: after,
      });
      try {
        return await this.callModel(state.conversation.forCall(note), tools, state, round, operationId);
      } catch (retryError) {
        throw failed(retryError);
      }
    }
  }

  /**
   * Tool calls of one assistant message, in order: reads run, refused calls get an error result,
   * proposals the policy lets through are applied, and the first proposal that needs a human's
   * approval, or the first question, stops the batch (the calls after it wait for the resume). Calls beyond
   * AI_MAX_TOOL_CALLS_PER_REPLY and calls that repeat one of the run's earlier calls are answered
   * with a note instead of being run.
   */
  private async processToolCalls(calls: LlmToolCall[], state: RunState, firstIndex: number): Promise<BatchResult> {
    const { request, summaries, conversation, writes } = state;
    const results: LlmToolMessage[] = [];
    const progress = { repeated: 0, fresh: 0, results: [] as Array<{ toolName: string; content: string }> };
    for (let position = 0; position < calls.length; position += 1) {
      const call = calls[position];
      // The call's place in its reply, for the per-reply cap (a resume goes on in the middle of one).
      const index = firstIndex + position;
      const name = call.function.name;
      const summary = (status: ToolCallSummary['status']) =>
        summaries.push({ id: call.id, name, arguments: call.function.arguments, status });
      const answer = (content: string, success: boolean, durationMs = 0) => {
        results.push(conversation.own({ role: 'tool', tool_call_id: call.id, name, content, success, durationMs }));
        if (success) state.toolResults += 1;
      };
      const answerFresh = (content: string, success: boolean, durationMs = 0) => {
        answer(content, success, durationMs);
        progress.fresh += 1;
        progress.results.push({ toolName: name, content });
      };

      if (request.signal.aborted) {
        // Every call keeps its result, so the committed round stays valid.
        answer(toolErrorContent(this.notes.cancelled), false);
        summary('error');
        continue;
      }
      if (index >= this.maxToolCallsPerReply) {
        if (index === this.maxToolCallsPerReply) {
          this.logger.info('tool_calls_capped', {
            threadId: request.threadId,
            calls: calls.length,
            limit: this.maxToolCallsPerReply,
          });
        }
        answer(toolErrorContent(this.notes.overCallLimit(this.maxToolCallsPerReply)), false);
        summary('error');
        continue;
      }
      const earlier = state.progress.repeatOf(call);
      if (earlier !== undefined) {
        progress.repeated += 1;
        answer(toolErrorContent(this.notes.repeated(earlier)), false);
        summary('error');
        continue;
      }

      const route = request.tools.route(call);
      switch (route.kind) {
        case 'read': {
          request.events.toolStart(call.id, route.name, call.function.arguments);
          const started = performance.now();
          this.events.debug('tool_execute', { toolName: route.name, threadId: request.threadId });
          const content = await this.traceTool(call, route.name, request, async (span) => {
            const result = await request.tools.executeRead(route.name, route.rawArguments);
            if (isErrorResult(result)) span.fail('tool_error');
            return result;
          });
          const durationMs = Math.round(performance.now() - started);
          this.events.debug('tool_result', { toolName: route.name, resultLen: content.length, durationMs });
          request.events.toolResult(call.id, content);
          answerFresh(content, !isErrorResult(content), durationMs);
          summary('executed');
          break;
        }
        case 'error': {
          if (route.malformed) {
            this.events.malformedJson({
              raw: call.function.arguments,
              context: route.name,
              threadId: request.threadId,
            });
          }
          const content = toolErrorContent(route.message);
          if (route.refusedBy)
            this.events.debug('tool_result', {
              toolName: route.name,
              status: `refused_${route.refusedBy}`,
              threadId: request.threadId,
            });
          if (route.announce) {
            request.events.toolStart(call.id, route.name, call.function.arguments);
            request.events.toolResult(call.id, content);
          }
          answerFresh(content, false);
          summary('error');
          break;
        }
        case 'propose':
        case 'apply': {
          const started = performance.now();
          const checked = await request.proposals.check(route.action);
          if (!checked.ok) {
            // Like any refused call: the model corrects it in its next round, the user never sees it.
            this.events.debug('tool_result', {
              toolName: route.name,
              status: 'invalid_references',
              threadId: request.threadId,
            });
            answerFresh(toolErrorContent(checked.message), false, Math.round(performance.now() - started));
            summary('error');
            break;
          }
          const action = checked.action;
          const preview = await request.proposals.preview(action, call.id);
          if (route.kind === 'apply') {
            const checkedAction = { toolCallId: call.id, proposedAction: action, preview };
            request.events.toolStart(call.id, route.name, call.function.arguments);
            const application = await this.traceTool(call, route.name, request, async (span) => {
              const applied = await request.proposals.applyAutonomous(checkedAction, route.via);
              span.set({ 'app.tool.outcome': applied.status });
              if (applied.status !== 'applied') span.fail(applied.status);
              return applied;
            });
            const content = autonomousResultContent(application, this.locale);
            if (application.status === 'applied' && application.appliedBy === 'client') {
              const sent = { ...checkedAction, operationId: application.operationId };
              writes.actions.push(sent);
              request.events.apply(sent);
            }
            request.events.toolResult(call.id, content);
            this.events.debug('tool_result', {
              toolName: route.name,
              status: application.status,
              threadId: request.threadId,
            });
            answerFresh(content, application.status === 'applied', Math.round(performance.now() - started));
            summary(application.status === 'applied' ? 'applied' : 'error');
            break;
          }
          summary('proposed');
          this.events.debug('hitl_interrupt', {
            toolName: route.name,
            actionType: action.type,
            threadId: request.threadId,
          });
          return {
            results,
            progress,
            pending: {
              interrupt: { kind: 'approval', toolCallId: call.id, proposedAction: action, preview },
              toolName: route.name,
              remainingToolCalls: calls.slice(position + 1),
              createdTime: this.now(),
            },
          };
        }
        case 'ask': {
          summary('asked');
          this.events.debug('hitl_interrupt', {
            toolName: route.name,
            questionKind: route.question.questionKind,
            threadId: request.threadId,
          });
          return {
            results,
            progress,
            pending: {
              interrupt: { kind: 'question', toolCallId: call.id, ...route.question },
              toolName: route.name,
              remainingToolCalls: calls.slice(position + 1),
              createdTime: this.now(),
            },
          };
        }
      }
    }
    return { results, pending: null, progress };
  }

  /**
   * One streamed upstream call. Its usage is recorded whatever happens: the provider's figures, or
   * (aborted, or failed mid-stream, before the usage arrived) an estimate (prompt from its length,
   * completion with the tokenizer when short), flagged `estimated`. The messages must all belong to
   * the run's thread (else thread_isolation_violation, internal: nothing is sent).
   */
  private callModel(
    messages: LlmMessage[],
    tools: readonly LlmToolDefinition[] | undefined,
    state: RunState,
    round: number,
    operationId: string,
  ): Promise<CallResult> {
    const tracer = this.deps.tracer ?? GenAiTracer.disabled;
    const provider = this.providerOf(state.request);
    if (!tracer.enabled) return this.streamCall(messages, tools, state, round, operationId, null);
    return tracer.chat(
      provider.model,
      {
        ...genAiCallAttributes(provider, state.request.threadId),
        ...(tracer.captureContent ? genAiContentAttributes({ input: messages }) : {}),
      },
      (span) => this.streamCall(messages, tools, state, round, operationId, span),
    );
  }

  private async streamCall(
    messages: LlmMessage[],
    tools: readonly LlmToolDefinition[] | undefined,
    state: RunState,
    round: number,
    operationId: string,
    span: TraceSpan | null,
  ): Promise<CallResult> {
    const { request, text } = state;
    const { tokenTracker } = this.deps;
    const provider = this.providerOf(request);
    assertThreadIsolation(messages, request.threadId, 'upstream_call');
    tokenTracker.assertWithinBudget();
    request.budget?.assertWithin(request.usage.totals());
    this.assertCallLimit(messages, tools);

    const sent = [...messages];
    const toolList = tools ? [...tools] : undefined;
    const done = new Map<number, LlmToolCall>();
    let callText = '';
    let usage: LlmUsage | null = null;
    let finishReason: string | null = null;
    let received = false;
    const started = performance.now();
    this.events.debug('llm_call_start', {
      provider: provider.providerName,
      model: provider.model,
      messages: sent.length,
      tools: toolList?.length ?? 0,
      threadId: request.threadId,
      agentRunId: request.agentRunId,
      round,
      operationId,
      // The masked messages are built only when the event is logged.
      ...(isAiDebugEnabled() ? { recentMessages: recentMessagesTrace(sent) } : {}),
    });
    text.startRound();

    let failure: unknown = null;
    try {
      const stream = provider.stream(sent, toolList, {
        signal: request.signal,
        retrievedContext: request.retrievedContext,
        threadId: request.threadId,
      });
      const pacer = request.pacing?.streamPacer();
      for await (const chunk of stream) {
        received = true;
        const wait = pacer?.beforeChunk();
        if (wait) await wait;
        switch (chunk.type) {
          case 'token':
            callText += chunk.token;
            text.append(chunk.token);
            break;
          case 'tool_call_done':
            done.set(chunk.toolCall.index, {
              id: chunk.toolCall.id,
              type: 'function',
              function: { name: chunk.toolCall.name, arguments: chunk.toolCall.arguments },
            });
            break;
          case 'usage':
            usage = chunk.usage;
            break;
          case 'done':
            finishReason = chunk.finishReason;
            break;
          default:
            break;
        }
      }
    } catch (error) {
      failure = error;
    }

    const aborted = request.signal.aborted || (failure !== null && isAbortError(failure));
    const toolCalls = withUniqueIds([...done.entries()].sort(([a], [b]) => a - b).map(([, call]) => call));
    // A request the upstream refused outright (HTTP error before any chunk) generated nothing to bill.
    const refused = failure !== null && !aborted && !received;
    const recorded = this.record(refused ? ZERO_LLM_USAGE : usage, sent, tools, callText, toolCalls, request);
    span?.set({
      ...genAiUsageAttributes(recorded, finishReason, aborted),
      ...(this.deps.tracer?.captureContent ? genAiContentAttributes({ output: { text: callText, toolCalls } }) : {}),
    });
    this.events.debug('llm_call_done', {
      provider: provider.providerName,
      model: provider.model,
      durationMs: Math.round(performance.now() - started),
      toolCalls: toolCalls.length,
      aborted,
      failed: failure !== null && !aborted,
    });

    if (aborted) return { text: callText, toolCalls: [], aborted: true };
    if (failure !== null) {
      throw failure instanceof AppError ? failure : this.deps.classifier.toAppError(failure, provider.providerName);
    }
    return { text: callText, toolCalls, aborted: false };
  }

  private record(
    reported: LlmUsage | null,
    sent: LlmMessage[],
    tools: readonly LlmToolDefinition[] | undefined,
    text: string,
    toolCalls: LlmToolCall[],
    request: AgentRunRequest,
  ): LlmUsage {
    const { tokenTracker } = this.deps;
    const provider = this.providerOf(request);
    let usage = reported;
    let estimated = false;
    if (!usage) {
      if (provider.offline) {
        usage = ZERO_LLM_USAGE;
      } else {
        // Never the tokenizer over the prompt: a mass disconnect would stall the process (see approximateTokens).
        const promptTokens = estimateTokens(sent) + estimateToolTokens(tools);
        const completionTokens = this.completionTokens([
          text,
          ...toolCalls.flatMap((call) => [call.function.name, call.function.arguments]),
        ]);
        usage = { promptTokens, completionTokens, cachedTokens: 0, totalTokens: promptTokens + completionTokens };
        estimated = true;
      }
    }
    const entry = tokenTracker.record(usage, {
      provider: provider.providerName,
      model: provider.model,
      pricing: provider.pricing,
      threadId: request.threadId,
      workspace: request.workspace,
    });
    request.usage.add(usage, entry.costUsd, estimated);
    return usage;
  }

  /** What was streamed before the abort: counted when short and the tokenizer is loaded, estimated otherwise. */
  private completionTokens(parts: string[]): number {
    const { tokenCounter } = this.deps;
    const chars = parts.reduce((sum, part) => sum + part.length, 0);
    const count =
      tokenCounter.loaded && chars <= COMPLETION_COUNT_MAX_CHARS
        ? (part: string) => tokenCounter.count(part)
        : approximateTokens;
    return parts.reduce((sum, part) => sum + count(part), 0);
  }

  /** The cheap estimate, not the tokenizer: this runs before every upstream call. */
  private assertCallLimit(messages: LlmMessage[], tools: readonly LlmToolDefinition[] | undefined): void {
    const limit = this.options.maxTokensPerCall ?? 0;
    if (limit <= 0) return;
    const prompt = estimateTokens(messages) + estimateToolTokens(tools);
    if (prompt > limit) throw new TokenLimitError('per_call', limit, prompt, this.options.locale);
  }
}

/** A read result that reports a problem (`{"error": …}`: read tools never throw): the call did not do what it asked. */
function isErrorResult(content: string): boolean {
  try {
    const parsed: unknown = JSON.parse(content);
    return parsed !== null && typeof parsed === 'object' && 'error' in parsed;
  } catch {
    return false;
  }
}

/** Providers may omit or repeat ids; every call needs its own so its result can be paired with it. */
function withUniqueIds(calls: LlmToolCall[]): LlmToolCall[] {
  const seen = new Set<string>();
  return calls.map((call) => {
    if (call.id && !seen.has(call.id)) {
      seen.add(call.id);
      return call;
    }
    const id = `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    seen.add(id);
    return { ...call, id };
  });
}
