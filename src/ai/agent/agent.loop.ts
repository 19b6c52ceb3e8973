import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Locale } from '../../config/app-config';
import { AppError } from '../../errors/app-error';
import { AiEventLogger } from '../../observability/ai-event.logger';
import { isAbortError } from '../../providers/llm-abort.error';
import { LlmErrorClassifier } from '../../providers/llm-error.classifier';
import { LlmAssistantMessage, LlmMessage, LlmToolCall, LlmToolDefinition, LlmToolMessage } from '../../conversation/llm-message';
import { LlmProvider } from '../../providers/llm-provider';
import { LlmUsage, ZERO_LLM_USAGE } from '../../providers/llm-usage';
import { TokenTracker } from '../../providers/token.tracker';
import { TokenLimitError } from '../../providers/token-limit.error';
import { approximateTokens, estimateTokens, estimateToolTokens } from '../../providers/token-estimate';
import { TokenCounter } from '../../rag/token-counter';
import { renderThreadEvent } from '../../threads/history/thread-event.renderer';
import type { PendingInterrupt } from '../../threads/thread.types';
import { ToolCallSummary } from './agent-result';
import { AgentCommit, AgentRunOutcome, AgentRunRequest, RunWrites } from './agent-run';
import { autonomousResultContent, toolErrorContent } from './tool-result.message';

export interface AgentLoopDependencies {
  provider: LlmProvider;
  tokenTracker: TokenTracker;
  tokenCounter: TokenCounter;
  classifier: LlmErrorClassifier;
  events?: AiEventLogger;
  now?: () => number;
}

export interface AgentLoopOptions {
  /** Rounds whose tool calls are executed (AI_MAX_TOOL_ROUNDS); then one last call without tools. */
  maxToolRounds: number;
  /** AI_MAX_TOKENS_PER_CALL (0: no limit): a call whose estimated prompt (approximateTokens) alone exceeds it is not made. */
  maxTokensPerCall?: number;
  /** Language of user-facing error messages (AI_LOCALE). */
  locale?: Locale;
}

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

const CANCELLED_RESULT = 'Not executed: the user stopped the generation.';
/**
 * Sent (never stored) with the last call once the tool rounds are spent (docs/agent.md, the circuit
 * breaker): without it a model often announces another lookup it can no longer make.
 */
export const TOOL_ROUNDS_SPENT_NOTE =
  'No more tool calls are available for this question. Answer now from the context and the tool results above, and say briefly what you could not check.';
/**
 * Longest completion (text + tool calls streamed before an abort) counted with the tokenizer: ~2-10 ms.
 * Longer ones, or any before the tokenizer is loaded, are estimated from their length, so a mass
 * disconnect never stalls the process.
 */
const COMPLETION_COUNT_MAX_CHARS = 2_000;

/**
 * The tool-calling loop (docs/agent.md), one implementation for REST and Socket.IO: streams
 * each upstream call (tokens to the events), executes read tools, stops at the first valid write
 * call with an interrupt, and commits every round before the next call. Pure: no Nest, no
 * transport, no store; the caller persists commits, owns the thread and the sink's terminal event.
 *
 * A run makes at most maxToolRounds + 1 upstream calls: after maxToolRounds rounds whose tool calls
 * were executed, one final call without tools so the user always gets an answer.
 */
export class AgentLoop {
  private readonly events: AiEventLogger;
  private readonly now: () => number;

  constructor(
    private readonly deps: AgentLoopDependencies,
    private readonly options: AgentLoopOptions,
  ) {
    this.events = deps.events ?? new AiEventLogger('agent');
    this.now = deps.now ?? Date.now;
  }

  async run(request: AgentRunRequest): Promise<AgentRunOutcome> {
    const messages: LlmMessage[] = [...request.messages];
    const text = new RunText((token) => request.events.token(token));
    const summaries: ToolCallSummary[] = [];
    const writes: RunWrites = { events: [], actions: [] };
    const commit = (round: AgentCommit) => this.commitRound(round, request, writes, messages);

    if (request.continuation) {
      const batch = await this.processToolCalls(request.continuation.remainingToolCalls, request, summaries, writes);
      const appended = [...request.continuation.results, ...batch.results];
      messages.push(...appended);
      await commit({ messages: appended, pendingInterrupt: batch.pending });
      if (batch.pending) return this.interrupted(text.full, summaries, batch.pending, writes);
    }

    const offered = request.tools.definitions;
    for (let round = 0; ; round += 1) {
      if (request.signal.aborted) return { type: 'message', text: text.full, toolCalls: summaries, aborted: true, ...writes };
      const canUseTools = offered.length > 0 && !this.providerOf(request).offline;
      const withTools = canUseTools && round < this.options.maxToolRounds;
      const sent: LlmMessage[] = canUseTools && !withTools ? [...messages, { role: 'system', content: TOOL_ROUNDS_SPENT_NOTE }] : messages;
      const call = await this.callModel(sent, withTools ? offered : undefined, request, text);

      if (call.aborted) {
        if (call.text.length > 0) {
          await commit({ messages: [{ role: 'assistant', content: call.text }], aborted: true });
        }
        return { type: 'message', text: text.full, toolCalls: summaries, aborted: true, ...writes };
      }
      if (!withTools || call.toolCalls.length === 0) {
        if (call.toolCalls.length > 0) {
          this.events.debug('llm_call_done', { ignoredToolCalls: call.toolCalls.length, reason: 'no tools offered' });
        }
        await commit({ messages: [{ role: 'assistant', content: call.text }] });
        return { type: 'message', text: text.full, toolCalls: summaries, aborted: false, ...writes };
      }

      const assistant: LlmAssistantMessage = {
        role: 'assistant',
        content: call.text.length > 0 ? call.text : null,
        tool_calls: call.toolCalls,
      };
      const batch = await this.processToolCalls(call.toolCalls, request, summaries, writes);
      const appended: LlmMessage[] = [assistant, ...batch.results];
      messages.push(...appended);
      await commit(batch.pending ? { messages: appended, pendingInterrupt: batch.pending } : { messages: appended });
      if (batch.pending) return this.interrupted(text.full, summaries, batch.pending, writes);
    }
  }

  /** The run's own provider (a workspace's configuration), else the loop's. */
  private providerOf(request: AgentRunRequest): LlmProvider {
    return request.provider ?? this.deps.provider;
  }

  /**
   * Commits a round with the ACTIONS_EXECUTED events of what it applied (stored after its messages),
   * then sends those events and shows them to the model for the rest of the run (docs/policy.md).
   * While a batch waits for an answer its events stay out of the model's messages, which must end with
   * the batch's results for the resume (as history building does).
   */
  private async commitRound(round: AgentCommit, request: AgentRunRequest, writes: RunWrites, messages: LlmMessage[]): Promise<void> {
    const events = request.actions.takeEvents();
    await request.commit(events.length > 0 ? { ...round, events } : round);
    for (const event of events) {
      writes.events.push(event);
      request.events.event(event);
      if (!round.pendingInterrupt) messages.push({ role: 'system', content: renderThreadEvent(event) });
    }
  }

  private interrupted(text: string, summaries: ToolCallSummary[], pending: PendingInterrupt, writes: RunWrites): AgentRunOutcome {
    return { type: 'interrupt', text, toolCalls: summaries, interrupt: pending.interrupt, pending, ...writes };
  }

  /**
   * Tool calls of one assistant message, in order: reads run, refused calls get an error result,
   * proposals the policy lets through are applied, and the first proposal that needs a human's
   * approval, or the first question, stops the batch (the calls after it wait for the resume).
   */
  private async processToolCalls(
    calls: LlmToolCall[],
    request: AgentRunRequest,
    summaries: ToolCallSummary[],
    writes: RunWrites,
  ): Promise<BatchResult> {
    const results: LlmToolMessage[] = [];
    for (let index = 0; index < calls.length; index += 1) {
      const call = calls[index];
      const summary = (status: ToolCallSummary['status']) =>
        summaries.push({ id: call.id, name: call.function.name, arguments: call.function.arguments, status });
      const answer = (content: string) => results.push({ role: 'tool', tool_call_id: call.id, content });

      if (request.signal.aborted) {
        // Every call keeps its result, so the committed round stays valid.
        answer(toolErrorContent(CANCELLED_RESULT));
        summary('error');
        continue;
      }

      const route = request.tools.route(call);
      switch (route.kind) {
        case 'read': {
          request.events.toolStart(call.id, route.name);
          const started = performance.now();
          this.events.debug('tool_execute', { toolName: route.name, threadId: request.threadId });
          const content = await request.tools.executeRead(route.name, route.rawArguments);
          this.events.debug('tool_result', {
            toolName: route.name,
            resultLen: content.length,
            durationMs: Math.round(performance.now() - started),
          });
          request.events.toolResult(call.id, content);
          answer(content);
          summary('executed');
          break;
        }
        case 'error': {
          if (route.malformed) {
            this.events.malformedJson({ raw: call.function.arguments, context: route.name, threadId: request.threadId });
          }
          const content = toolErrorContent(route.message);
          if (route.refusedBy) this.events.debug('tool_result', { toolName: route.name, status: `refused_${route.refusedBy}`, threadId: request.threadId });
          if (route.announce) {
            request.events.toolStart(call.id, route.name);
            request.events.toolResult(call.id, content);
          }
          answer(content);
          summary('error');
          break;
        }
        case 'propose':
        case 'apply': {
          const checked = request.checkProposal ? await request.checkProposal(route.action) : { ok: true as const, action: route.action };
          if (!checked.ok) {
            // Like any refused call: the model corrects it in its next round, the user never sees it.
            this.events.debug('tool_result', { toolName: route.name, status: 'invalid_references', threadId: request.threadId });
            answer(toolErrorContent(checked.message));
            summary('error');
            break;
          }
          const action = checked.action;
          const preview = await request.preview(action, call.id);
          if (route.kind === 'apply') {
            const checkedAction = { toolCallId: call.id, proposedAction: action, preview };
            request.events.toolStart(call.id, route.name);
            const application = await request.actions.applyAutonomous(checkedAction);
            const content = autonomousResultContent(application);
            if (application.status === 'applied' && application.appliedBy === 'client') {
              writes.actions.push(checkedAction);
              request.events.apply(checkedAction);
            }
            request.events.toolResult(call.id, content);
            this.events.debug('tool_result', { toolName: route.name, status: application.status, threadId: request.threadId });
            answer(content);
            summary(application.status === 'applied' ? 'applied' : 'error');
            break;
          }
          summary('proposed');
          this.events.debug('hitl_interrupt', { toolName: route.name, actionType: action.type, threadId: request.threadId });
          return {
            results,
            pending: {
              interrupt: { kind: 'approval', toolCallId: call.id, proposedAction: action, preview },
              toolName: route.name,
              remainingToolCalls: calls.slice(index + 1),
              createdTime: this.now(),
            },
          };
        }
        case 'ask': {
          summary('asked');
          this.events.debug('hitl_interrupt', { toolName: route.name, questionKind: route.question.questionKind, threadId: request.threadId });
          return {
            results,
            pending: {
              interrupt: { kind: 'question', toolCallId: call.id, ...route.question },
              toolName: route.name,
              remainingToolCalls: calls.slice(index + 1),
              createdTime: this.now(),
            },
          };
        }
      }
    }
    return { results, pending: null };
  }

  /**
   * One streamed upstream call. Its usage is recorded whatever happens: the provider's figures, or
   * (aborted, or failed mid-stream, before the usage arrived) an estimate (prompt from its length,
   * completion with the tokenizer when short), flagged `estimated`.
   */
  private async callModel(
    messages: LlmMessage[],
    tools: readonly LlmToolDefinition[] | undefined,
    request: AgentRunRequest,
    text: RunText,
  ): Promise<CallResult> {
    const { tokenTracker } = this.deps;
    const provider = this.providerOf(request);
    tokenTracker.assertWithinBudget();
    request.assertBudget?.(request.usage.totals());
    this.assertCallLimit(messages, tools);

    const sent = [...messages];
    const toolList = tools ? [...tools] : undefined;
    const done = new Map<number, LlmToolCall>();
    let callText = '';
    let usage: LlmUsage | null = null;
    let received = false;
    const started = performance.now();
    this.events.debug('llm_call_start', {
      provider: provider.providerName,
      model: provider.model,
      messages: sent.length,
      tools: toolList?.length ?? 0,
      threadId: request.threadId,
    });
    text.startRound();

    let failure: unknown = null;
    try {
      const stream = provider.stream(sent, toolList, { signal: request.signal, retrievedContext: request.retrievedContext });
      for await (const chunk of stream) {
        received = true;
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
    this.record(refused ? ZERO_LLM_USAGE : usage, sent, tools, callText, toolCalls, request);
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
  ): void {
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
        const completionTokens = this.completionTokens([text, ...toolCalls.flatMap((call) => [call.function.name, call.function.arguments])]);
        usage = { promptTokens, completionTokens, cachedTokens: 0, totalTokens: promptTokens + completionTokens };
        estimated = true;
      }
    }
    const entry = tokenTracker.record(usage, {
      provider: provider.providerName,
      model: provider.model,
      threadId: request.threadId,
      workspace: request.workspace,
    });
    request.usage.add(usage, entry.costUsd, estimated);
  }

  /** What was streamed before the abort: counted when short and the tokenizer is loaded, estimated otherwise. */
  private completionTokens(parts: string[]): number {
    const { tokenCounter } = this.deps;
    const chars = parts.reduce((sum, part) => sum + part.length, 0);
    const count = tokenCounter.loaded && chars <= COMPLETION_COUNT_MAX_CHARS ? (part: string) => tokenCounter.count(part) : approximateTokens;
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
