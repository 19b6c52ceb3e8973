import { randomUUID } from 'node:crypto';
import { canEdit, Principal } from '../../auth/principal';
import { OperationService } from '../../changes/operation.service';
import type { OperationRecord } from '../../changes/operation';
import type { AppConfig } from '../../config/app-config';
import type { Interrupt, PromptEstimate } from '../../conversation/interrupt';
import type { LlmMessage } from '../../conversation/llm-message';
import type { MessageSegment } from '../../conversation/rich-message';
import type { ThreadEvent } from '../../conversation/thread-event';
import { AppError } from '../../errors/app-error';
import type { GraphDataSourceFactory } from '../../graph/graph-data-source.factory';
import type { Graph } from '../../graph/graph.types';
import type { MutableGraphDataSource } from '../../graph/mutable-graph-data-source';
import type { RecalledMemory } from '../../memory/recall/memory.recaller';
import { AiEventLogger } from '../../observability/ai-event.logger';
import { Logger } from '../../observability/logger';
import { GenAiTracer } from '../../observability/tracing/gen-ai.tracer';
import {
  ATTR_GEN_AI_CONVERSATION_ID as CONVERSATION_ID,
  ATTR_GEN_AI_DATA_SOURCE_ID as DATA_SOURCE_ID,
  ATTR_GEN_AI_OPERATION_NAME as OPERATION_NAME,
  GEN_AI_OPERATION_NAME_VALUE_RETRIEVAL as RETRIEVAL_OPERATION,
} from '@opentelemetry/semantic-conventions/incubating';
import type { ActionPolicyService } from '../../policy/action-policy.service';
import type { LlmProvider } from '../../providers/llm-provider';
import type { LlmProviderResolver } from '../../providers/llm-provider.resolver';
import type { TokenTracker } from '../../providers/token.tracker';
import { approximateTokens } from '../../providers/token-estimate';
import type { GraphRagRetriever } from '../../rag/graph-rag.retriever';
import { renderThreadEvent } from '../../threads/history/thread-event.renderer';
import { generateMessageId } from '../../threads/sortable-id.generator';
import { toEventMessage } from '../../threads/thread-message.factory';
import type { ThreadRunLease } from '../../threads/thread-run.lease';
import type { ThreadOrigin, ThreadService } from '../../threads/thread.service';
import { EMPTY_USAGE, ThreadMessage, ThreadRecord, UsageTotals } from '../../threads/thread.types';
import type { RunActions } from '../actions/run-actions';
import { decisionsOf, untoldProposals, untoldReverts } from '../actions/untold-operations';
import { actionsRevertedEvent } from '../events/actions-reverted.event';
import type { AgentEventSink } from '../agent/agent-event.sink';
import type { AgentResult } from '../agent/agent-result';
import type { RunBudget } from '../agent/agent-run';
import { HeldEventsSink } from '../agent/held-events.sink';
import type { ActingIdentity } from '../authority/acting-identity';
import { RunAuthority, withoutAutonomous } from '../authority/run-authority';
import type { ContextAssembler } from '../context/context.assembler';
import { ContextPart, dataAddedEvent } from '../events/data-added.event';
import { plural } from '../events/event-wording';
import type { HitlObserver } from '../hitl.observer';
import type { MultitaskStrategy } from '../multitask-strategy';
import { supersededResults } from '../interrupts/pending-interrupt.settler';
import type { PromptLevelsCache } from '../prompts/prompt-levels.cache';
import { joinPromptLevels } from '../prompts/system-prompt.builder';
import type { SmallerContextBuilder } from '../recovery/smaller-context.builder';
import type { BlockDataExecutor } from '../blocks/block-data.executor';
import { NOTHING_ALWAYS_SENT } from '../blocks/query.deduplicator';
import type { AgentRunExecutor } from './agent-run.executor';
import { estimatePrompt, exceedsPromptLimits, promptSizeQuestion, tooLargeMessage } from './prompt-size.gate';
import type { RunKind, RunOutcome, RunSession, ThreadRun } from './thread-runner';
import type { ThreadRunner } from './thread-runner';
import { resultAttributes, RUN_KIND } from './run-span.attributes';
import type { ThreadTurnScheduler } from './thread-turn.scheduler';

/** A question to run on a thread (a chat message, an automation's prompt), its input already checked. */
export interface QuestionRequest {
  kind: Extract<RunKind, 'chat' | 'automation'>;
  /** Who the run acts as; its principal owns the thread. */
  acting: ActingIdentity;
  graphKey: string;
  /** Continue this thread; absent: a new one (`title`, `origin`). */
  threadId?: string;
  title: string;
  origin?: ThreadOrigin;
  message: string;
  /** A rich message: its segments, stored with it; `message` is their linear text. */
  segments?: MessageSegment[];
  mentions: string[];
  /** The run's own provider configuration (an automation's); absent: the workspace's active one. */
  providerConfigId?: string;
  /** The run's own budget (an automation's), checked before every upstream call with the run's usage. */
  budget?: RunBudget;
  /** Nobody receives the run's events (an automation): no client can apply an action for it. */
  unattended?: boolean;
  /** What the question does when another run holds its thread (absent or `reject`: thread_busy). */
  multitaskStrategy?: MultitaskStrategy;
  sink: AgentEventSink;
  signal: AbortSignal;
}

/** What the question run needs, wired once (AiModule's factory). */
export interface QuestionRunDependencies {
  config: AppConfig;
  graphs: GraphDataSourceFactory;
  retriever: GraphRagRetriever;
  threads: ThreadService;
  policies: ActionPolicyService;
  tokenTracker: TokenTracker;
  providers: LlmProviderResolver;
  promptLevels: PromptLevelsCache;
  context: ContextAssembler;
  smallerContext: SmallerContextBuilder;
  operations: OperationService;
  runner: ThreadRunner;
  executor: AgentRunExecutor;
  /** What the blocks of a message (and its mentions) load into its context. */
  blocks: BlockDataExecutor;
  hitl?: HitlObserver;
  /** Where a question sent with a multitaskStrategy waits for its thread; absent: every question is `reject`. */
  turns?: ThreadTurnScheduler;
  /** The run's spans: invoke_agent, its retrieval and memory recall (none by default). */
  tracer?: GenAiTracer;
}

/** The thread a question runs on, found inside the setup slot. */
interface QuestionStart {
  thread: ThreadRecord;
  graph: Graph;
  /** The thread was created for this question, which it holds already, with the provider checked then. */
  stored?: { agentRunId: string; provider: LlmProvider; questionId: string };
}

/**
 * The question run the chat and automation use cases share: a question on a thread, with at most one
 * run per thread at a time on any instance. The question is stored first, under the lease, before `sink.thread` (a
 * pending interrupt superseded in the same commit, with what a crash kept out of the thread told there,
 * "Operations"); its context and DATA_ADDED event follow in a second commit, the event sent before the model's first
 * token; then the loop, under the acting identity's action policy as stored now, on the run's provider.
 *
 * Contract with the transports (through the use cases): `sink.thread(threadId)` first, once the question is stored
 * (or right before a refusal: thread_busy, budget_exceeded, nothing stored); then tokens and tool events; then exactly
 * one `complete(result)`, after the thread's lease was released. Failures are thrown as AppError and `complete` is
 * not called; usage is recorded in every case. `signal` stops the generation: the call resolves with `aborted: true`.
 */
export class QuestionRun {
  private readonly events = new AiEventLogger('agent');
  private readonly logger = new Logger('agent');

  constructor(private readonly deps: QuestionRunDependencies) {}

  run(request: QuestionRequest): Promise<AgentResult> {
    const tracer = this.deps.tracer ?? GenAiTracer.disabled;
    return tracer.invokeAgent(
      { [RUN_KIND]: request.kind, ...(request.threadId ? { [CONVERSATION_ID]: request.threadId } : {}) },
      async (span) => {
        const result = await this.runTraced(request);
        span.set({ [CONVERSATION_ID]: result.threadId, ...resultAttributes(result) });
        return result;
      },
    );
  }

  private async runTraced(request: QuestionRequest): Promise<AgentResult> {
    const { principal } = request.acting;
    const dataSource = this.deps.graphs.forWorkspace(principal.workspace);
    const waited = await this.waitForThread(request);
    if (waited === null) return this.stoppedWhileQueued(request);
    let session: RunSession;
    try {
      session = await this.deps.runner.begin(request.kind, { principal, sink: request.sink, signal: request.signal });
    } catch (error) {
      await waited?.release();
      throw error;
    }
    let started: QuestionStart;
    try {
      started = await this.start(request, session, dataSource, waited);
    } catch (error) {
      await waited?.release();
      return session.abandon(error);
    }
    try {
      return await session.finish(await this.ask(request, started, dataSource, session));
    } catch (error) {
      return session.fail(error);
    }
  }

  /**
   * A question sent to an existing thread with a multitaskStrategy other than `reject` gets the thread's lease before
   * its setup slot, outside it: it may wait for the run holding the thread (ThreadTurnScheduler), `sink.queued` told
   * when it does. Undefined: the question takes its lease in its setup, as a `reject` one; null: stopped while waiting.
   */
  private async waitForThread(request: QuestionRequest): Promise<ThreadRunLease | null | undefined> {
    const strategy = request.multitaskStrategy;
    const turns = this.deps.turns;
    if (!request.threadId || !strategy || strategy === 'reject' || !turns) return undefined;
    // Ownership first: a stranger gets not_found and never stops anyone's run.
    const { threadId } = await this.deps.threads.load(request.acting.principal, request.threadId, request.graphKey);
    try {
      return await turns.take(threadId, strategy, request.signal, () => request.sink.queued?.(threadId));
    } catch (error) {
      request.sink.thread(threadId);
      throw error;
    }
  }

  /** A question stopped while it waited for its thread: nothing of it was stored; it completes aborted. */
  private stoppedWhileQueued(request: QuestionRequest): AgentResult {
    const threadId = request.threadId as string;
    const result: AgentResult = {
      type: 'message',
      threadId,
      message: '',
      toolCalls: [],
      usage: { ...EMPTY_USAGE },
      aborted: true,
    };
    this.logger.info('question_stopped_while_queued', { threadId });
    request.sink.thread(threadId);
    request.sink.complete(result);
    return result;
  }

  /**
   * The graph and the thread, inside the setup slot, then the thread's lease (a new thread is created holding it;
   * `waited`: the lease the question waited for).
   */
  private async start(
    request: QuestionRequest,
    session: RunSession,
    dataSource: MutableGraphDataSource,
    waited: ThreadRunLease | undefined,
  ): Promise<QuestionStart> {
    const { principal } = request.acting;
    const graph = await dataSource.getGraph(request.graphKey);
    if (!graph) throw AppError.notFound(`Graph "${request.graphKey}" not found`);
    if (request.threadId) {
      const thread = await this.deps.threads.load(principal, request.threadId, request.graphKey);
      try {
        if (waited) session.adopt(thread, waited);
        else await session.leaseThread(thread);
      } catch (error) {
        request.sink.thread(thread.threadId);
        throw error;
      }
      this.events.debug('agent_chat_start', {
        graphKey: request.graphKey,
        messageLength: request.message.length,
        threadId: thread.threadId,
      });
      return { thread, graph };
    }
    const started = await this.startConversation(request, dataSource, graph);
    session.adopt(started.thread, started.lease);
    this.events.debug(request.kind === 'automation' ? 'agent_automation_start' : 'agent_chat_start', {
      graphKey: request.graphKey,
      messageLength: request.message.length,
      threadId: started.thread.threadId,
    });
    return { thread: started.thread, graph, stored: started.stored };
  }

  /**
   * A new conversation, inside its setup slot: the budgets and the provider are checked, then ONE write creates the
   * thread with the run's lease held and the question stored (ThreadService.createForRun). A refusal by the budgets
   * or the provider still creates the thread, empty, and announces it before the error.
   */
  private async startConversation(request: QuestionRequest, dataSource: MutableGraphDataSource, graph: Graph) {
    const { principal } = request.acting;
    let provider: LlmProvider;
    try {
      provider = await this.checkedProvider(principal, request, EMPTY_USAGE);
    } catch (error) {
      request.sink.thread(
        (await this.deps.threads.create(principal, request.graphKey, request.title, request.origin)).threadId,
      );
      throw error;
    }
    const agentRunId = randomUUID();
    const question = userMessage(request, Date.now());
    const append = [await this.systemPrompt(graph, dataSource, principal), question];
    const { thread, lease } = await this.deps.threads.createForRun(
      principal,
      request.graphKey,
      request.title,
      { operationId: `${agentRunId}:input`, append },
      request.origin,
    );
    return { thread, lease, stored: { agentRunId, provider, questionId: question.id } };
  }

  /** A question on a thread whose lease is held: stored (unless a new thread holds it already), then answered. */
  private async ask(
    request: QuestionRequest,
    started: QuestionStart,
    dataSource: MutableGraphDataSource,
    run: ThreadRun,
  ): Promise<RunOutcome> {
    const { principal } = request.acting;
    let thread = started.thread;
    let provider: LlmProvider;
    let agentRunId: string;
    let questionId: string;
    let recovered: ThreadEvent[] = [];
    if (started.stored) {
      ({ provider, agentRunId, questionId } = started.stored);
    } else {
      agentRunId = randomUUID();
      try {
        // Fresh under the lease: the run starts from what is stored now.
        thread = await this.deps.threads.load(principal, thread.threadId, thread.graphKey);
        provider = await this.checkedProvider(principal, request, run.usage.totals());
        ({ thread, recovered, questionId } = await this.storeQuestion(
          request,
          thread,
          started.graph,
          dataSource,
          agentRunId,
          run,
        ));
      } catch (error) {
        request.sink.thread(started.thread.threadId);
        throw error;
      }
    }
    // The message is stored: the client may now know the thread. Its first events are held until the upstream
    // request is written (HeldEventsSink), and sent before anything else in every case.
    const events = new HeldEventsSink(request.sink);
    events.thread(thread.threadId);
    for (const event of recovered) events.event(event);
    try {
      return await this.answer(
        request,
        { thread, graph: started.graph, provider, agentRunId, questionId, recovered },
        dataSource,
        run,
        events,
      );
    } finally {
      events.release();
    }
  }

  /** The rest of a stored question's run: its context and DATA_ADDED event, then the loop. */
  private async answer(
    request: QuestionRequest,
    asked: {
      thread: ThreadRecord;
      graph: Graph;
      provider: LlmProvider;
      agentRunId: string;
      questionId: string;
      recovered: ThreadEvent[];
    },
    dataSource: MutableGraphDataSource,
    run: ThreadRun,
    events: HeldEventsSink,
  ): Promise<RunOutcome> {
    const { config, retriever, promptLevels, context, policies, executor, smallerContext, blocks } = this.deps;
    const { acting, message, mentions } = request;
    const { graph, provider, agentRunId } = asked;
    let { thread } = asked;
    await run.pause();
    const levels = await policies.levelsFor(acting.principal);
    const unattendedClientApply = request.unattended === true && config.agent.hitlApply === 'client';
    const authority = new RunAuthority(
      canEdit(acting.principal),
      unattendedClientApply ? withoutAutonomous(levels) : levels,
      [],
      config.locale,
    );
    const stablePrompt = await promptLevels.levelsFor(dataSource, graph, acting.principal.role, config.locale);
    // The blocks' data and the pinned nodes, less what level 2 holds already: level 4, after the retrieved context.
    const attached = await blocks.execute({
      dataSource,
      graph,
      segments: request.segments,
      mentions,
      alwaysSent: stablePrompt.alwaysSent ?? NOTHING_ALWAYS_SENT,
    });
    const tracer = this.deps.tracer ?? GenAiTracer.disabled;
    const { context: retrieved, message: retrievedContent } = await tracer.step(
      RETRIEVAL_SPAN,
      { [OPERATION_NAME]: RETRIEVAL_OPERATION, [DATA_SOURCE_ID]: thread.graphKey },
      async (span) => {
        const found = await retriever.retrieveWithMessage(dataSource, thread.graphKey, message, {
          mentions: attached.mentions,
          locale: config.locale,
        });
        span.set({ 'app.retrieval.nodes': found.context.relevantNodes.length });
        return found;
      },
    );
    const contextContent = attached.text ? `${retrievedContent}\n\n${attached.text}` : retrievedContent;
    const now = Date.now();
    const contextMessage: ThreadMessage = {
      id: generateMessageId(now),
      role: 'system',
      kind: 'rag_context',
      content: contextContent,
      createdTime: now,
    };
    // Assembled before the context's commit, so that what memory recalls for this message is in its DATA_ADDED event.
    const assembled = await tracer.step(MEMORY_RECALL_SPAN, { [CONVERSATION_ID]: thread.threadId }, async (span) => {
      const built = await context.assemble({
        levels: stablePrompt,
        thread,
        currentContext: contextMessage,
        signal: run.signal,
      });
      span.set({ 'app.memory.recalled': built.recalled.length });
      return built;
    });
    // What the context of this message held, stored right after it.
    const dataAdded = dataAddedEvent({
      context: retrieved,
      mentions,
      attached,
      tokens: approximateTokens(contextContent) + assembled.tokens.recalled,
      parts: recalledPart(assembled.recalled),
    });
    thread = (
      await run.commit(thread, {
        operationId: `${agentRunId}:context`,
        append: [contextMessage, toEventMessage(dataAdded, now)],
      })
    ).record;
    events.event(dataAdded);

    // The event follows its question, as the history shows stored events (a [SYSTEM] line).
    const history: LlmMessage[] = [...assembled.messages];
    history.splice(assembled.afterQuestion, 0, {
      role: 'system',
      content: renderThreadEvent(dataAdded),
      threadId: thread.threadId,
    });
    const withContext = thread;
    const tooLarge = this.oversizedPrompt(history, { provider, authority, dataSource, thread });
    if (tooLarge)
      return this.notSent(request, { thread, agentRunId, authority, run }, tooLarge, [...asked.recovered, dataAdded]);
    await run.handOver();
    // This turn builds the upstream request; undici writes it on a kept-alive connection in the next one (it first
    // lets the socket's pending events through); the held events go out in the turn after that.
    setImmediate(() => setImmediate(() => events.release()));
    const outcome = await executor.execute({
      acting,
      provider,
      budget: request.budget,
      thread,
      dataSource,
      graph,
      messages: history,
      sink: events,
      run,
      agentRunId,
      retrievedContext: retrieved,
      authority,
      actions: executor.actionsFor({ dataSource, thread, graph, acting, createTypes: attached.createTypes }),
      shrinker: smallerContext.shrinkerFor({
        dataSource,
        thread: withContext,
        question: message,
        mentions: attached.mentions,
        levels: stablePrompt,
      }),
    });
    if (outcome.type === 'interrupt') this.deps.hitl?.interrupt('proposed');
    const answered = executor.outcome(thread.threadId, outcome, run.usage, [...asked.recovered, dataAdded]);
    const { result } = answered;
    if (result.type !== 'message' || !result.aborted || run.signal.reason !== 'rollback') return answered;
    await this.rollBack(acting.principal, thread, asked, run);
    return { ...answered, result: { ...result, rolledBack: true } };
  }

  /**
   * A run stopped by a question sent with multitaskStrategy `rollback`: its turn (its question and everything after
   * it) is removed from the thread, under its lease, before the waiting question gets it. Changes applied during the
   * turn stay in the graph (and undoable): a rollback discards the conversation, not the edits.
   */
  private async rollBack(
    principal: Principal,
    thread: ThreadRecord,
    asked: { agentRunId: string; questionId: string },
    run: ThreadRun,
  ): Promise<void> {
    const current = await this.deps.threads.load(principal, thread.threadId, thread.graphKey);
    await run.commit(current, {
      operationId: `${asked.agentRunId}:rollback`,
      discardFrom: asked.questionId,
      append: [],
    });
    this.logger.info('turn_rolled_back', { threadId: thread.threadId });
  }

  /**
   * The estimate of the question's first upstream request when it is over AI_CONFIRM_ABOVE_TOKENS or
   * AI_CONFIRM_ABOVE_COST_USD (null: it is sent). Its messages and the tools offered, as the loop will send them.
   */
  private oversizedPrompt(
    history: readonly LlmMessage[],
    plan: Parameters<AgentRunExecutor['offeredTools']>[0],
  ): PromptEstimate | null {
    const { config, executor, tokenTracker } = this.deps;
    const limits = { maxTokens: config.agent.confirmAboveTokens, maxCostUsd: config.agent.confirmAboveCostUsd };
    if (limits.maxTokens <= 0 && limits.maxCostUsd <= 0) return null;
    const estimate = estimatePrompt(history, executor.offeredTools(plan), (tokens) =>
      tokenTracker.estimateInputCost(plan.provider.providerName, plan.provider.model, tokens),
    );
    return exceedsPromptLimits(estimate, limits) ? estimate : null;
  }

  /**
   * A question whose prompt is over the limit, with no upstream call: a chat stops on a confirm question carrying the
   * estimate (its resume sends the prompt on a yes, ends on a no); an automation, which nobody can answer, ends
   * not sent (its run: skipped_too_large). The question, its context and DATA_ADDED event are stored already.
   */
  private async notSent(
    request: QuestionRequest,
    state: { thread: ThreadRecord; agentRunId: string; authority: RunAuthority; run: ThreadRun },
    estimate: PromptEstimate,
    events: ThreadEvent[],
  ): Promise<RunOutcome> {
    const { config } = this.deps;
    const { thread, agentRunId, authority, run } = state;
    const stats = { rounds: 0, toolResults: 0 };
    const base = { threadId: thread.threadId, toolCalls: [], usage: run.usage.report(), events };
    if (request.kind === 'automation') {
      const limits = { maxTokens: config.agent.confirmAboveTokens, maxCostUsd: config.agent.confirmAboveCostUsd };
      return {
        result: {
          ...base,
          type: 'message',
          message: tooLargeMessage(estimate, limits),
          notSent: { reason: 'too_large', estimate },
        },
        stats: { ...stats, stopReason: 'not_sent' },
      };
    }
    const interrupt: Interrupt = {
      kind: 'question',
      toolCallId: `send_${agentRunId}`,
      questionKind: 'confirm',
      question: promptSizeQuestion(estimate, config.locale),
      estimate,
    };
    await run.commit(thread, {
      operationId: `${agentRunId}:confirm_send`,
      append: [],
      pendingInterrupt: {
        interrupt,
        toolName: 'ask_user',
        remainingToolCalls: [],
        createdTime: Date.now(),
        policy: authority.snapshot(),
        acting: request.acting,
        confirmsSend: true,
      },
    });
    this.deps.hitl?.interrupt('proposed');
    return {
      result: { ...base, type: 'interrupt', message: '', interrupt },
      stats: { ...stats, stopReason: 'interrupt' },
    };
  }

  /** The provider a run of the workspace uses: resolved once, at its start. */
  private async checkedProvider(
    principal: Principal,
    request: Pick<QuestionRequest, 'budget' | 'providerConfigId'>,
    usage: UsageTotals,
  ): Promise<LlmProvider> {
    this.deps.tokenTracker.assertWithinBudget();
    request.budget?.assertWithin(usage);
    return this.deps.providers.forRun(principal.workspace, request.providerConfigId);
  }

  /**
   * The question, stored under the lease before anything else: one commit of the tool
   * results that settle a pending interrupt it supersedes, the ACTIONS_EXECUTED event of what a crash kept out of the
   * thread (a decision recorded before it, an autonomous batch whose round never committed,
   * "Operations"), and the user message. Its retrieved context follows in a commit of its own.
   */
  private async storeQuestion(
    request: QuestionRequest,
    thread: ThreadRecord,
    graph: Graph,
    dataSource: MutableGraphDataSource,
    agentRunId: string,
    run: ThreadRun,
  ): Promise<{ thread: ThreadRecord; recovered: ThreadEvent[]; questionId: string }> {
    const now = Date.now();
    const pending = thread.pendingInterrupt;
    const operations = await this.deps.operations.listForThread(dataSource.workspace, thread.threadId);
    const decided = pending ? decisionsOf(pending, thread.threadId, operations) : new Map<string, OperationRecord>();
    // The service's own question (send a large prompt?) has no tool call of the model to answer.
    const append: ThreadMessage[] =
      pending && !pending.confirmsSend ? supersededResults(pending, now, this.deps.config.locale, decided) : [];
    const untold = [...decided.values(), ...untoldProposals(thread, operations, decided)].filter(
      (record) => record.status !== 'rejected',
    );
    const recovered: ThreadMessage[] = [];
    if (untold.length > 0) {
      const actions: RunActions = this.deps.executor.actionsFor({ dataSource, thread, graph, acting: request.acting });
      recovered.push(toEventMessage(actions.recoveredEvent(untold), now));
    }
    // A revert keeps the id of the message it was recorded with (undo names it), so its event is stored under it.
    for (const revert of untoldReverts(thread, operations))
      recovered.push({
        ...toEventMessage(actionsRevertedEvent(revert, revert.status === 'sent'), now),
        ...(revert.messageId ? { id: revert.messageId } : {}),
      });
    if (thread.messages.length === 0) append.push(await this.systemPrompt(graph, dataSource, request.acting.principal));
    append.push(...recovered);
    const question = userMessage(request, now);
    const questionId = question.id;
    append.push(question);
    const { record } = await run.commit(thread, {
      operationId: `${agentRunId}:input`,
      append,
      ...(pending ? { pendingInterrupt: null } : {}),
    });
    if (pending) this.deps.hitl?.interrupt('superseded');
    return {
      thread: record,
      recovered: recovered.flatMap((message) => (message.event ? [message.event] : [])),
      questionId,
    };
  }

  /** The system prompt of a thread's first message: the stable levels as they are now. */
  private async systemPrompt(
    graph: Graph,
    dataSource: MutableGraphDataSource,
    principal: Principal,
  ): Promise<ThreadMessage> {
    const now = Date.now();
    const { promptLevels, config } = this.deps;
    return {
      id: generateMessageId(now),
      role: 'system',
      kind: 'system_prompt',
      content: joinPromptLevels(await promptLevels.levelsFor(dataSource, graph, principal.role, config.locale)),
      createdTime: now,
    };
  }
}

/** The question as stored: its linear text, and the segments it was composed of. */
function userMessage(request: QuestionRequest, now: number): ThreadMessage {
  return {
    id: generateMessageId(now),
    role: 'user',
    content: request.message,
    createdTime: now,
    ...(request.segments ? { segments: request.segments } : {}),
  };
}

/** The recalled memory of a message, as a part of its DATA_ADDED event (none when nothing was recalled). */
function recalledPart(recalled: readonly RecalledMemory[]): ContextPart[] {
  if (recalled.length === 0) return [];
  const records = recalled.map(
    ({ record, score }) =>
      `${record.level === 0 ? 'turn' : `level-${record.level} summary`} of ${record.createdAt} (similarity ${score.toFixed(2)})`,
  );
  return [
    {
      summary: plural(recalled.length, 'recalled memory record'),
      label: 'recalled memory',
      detail: records.join('; '),
    },
  ];
}

const RETRIEVAL_SPAN = `${RETRIEVAL_OPERATION} graph`;
const MEMORY_RECALL_SPAN = 'memory recall';
