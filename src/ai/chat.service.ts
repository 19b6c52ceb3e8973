import { Inject, Injectable, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { canEdit, Principal } from '../auth/principal';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { ActionConversionResult } from '../conversation/action-conversion-result';
import { GraphRAGContext } from '../conversation/graph-rag-context';
import type { ThreadEvent } from '../conversation/thread-event';
import { LlmMessage, LlmToolMessage } from '../conversation/llm-message';
import { ProposedAction } from '../conversation/proposed-action';
import { AppError } from '../errors/app-error';
import { GraphChangeNotifier } from '../graph/graph-change.notifier';
import { GraphDataSourceFactory } from '../graph/graph-data-source.factory';
import { Graph } from '../graph/graph.types';
import { MutableGraphDataSource } from '../graph/mutable-graph-data-source';
import { MemoryContextBuilder } from '../memory/memory-context.builder';
import { MemoryService } from '../memory/memory.service';
import type { RecalledMemory } from '../memory/recall/memory.recaller';
import { AiEventLogger } from '../observability/ai-event.logger';
import { Logger } from '../observability/logger';
import { ActionPolicyService } from '../policy/action-policy.service';
import { LlmErrorClassifier } from '../providers/llm-error.classifier';
import { LlmProvider } from '../providers/llm-provider';
import { LLM_PROVIDER_RESOLVER, LlmProviderResolver } from '../providers/llm-provider.resolver';
import { LLM_PROVIDER } from '../providers/llm-provider.token';
import { TokenTracker } from '../providers/token.tracker';
import { approximateTokens } from '../providers/token-estimate';
import { DEFAULT_GRAPH_RAG_OPTIONS } from '../rag/graph-rag-options';
import { GraphRagRetriever } from '../rag/graph-rag.retriever';
import { TokenCounter } from '../rag/token-counter';
import { generateMessageId } from '../threads/sortable-id.generator';
import { renderThreadEvent } from '../threads/history/thread-event.renderer';
import { toEventMessage, toThreadMessage } from '../threads/thread-message.factory';
import { deriveThreadTitle } from '../threads/thread-title';
import { ThreadOrigin, ThreadService } from '../threads/thread.service';
import {
  EMPTY_USAGE,
  PendingInterrupt,
  ThreadMessage,
  ThreadRecord,
  ThreadSummary,
  UsageTotals,
} from '../threads/thread.types';
import { ActionApplier } from './actions/action.applier';
import { AppliedActionRecorder } from './actions/applied-action.recorder';
import { ActionConverter } from './actions/action.converter';
import { ProposalReferenceValidator } from './actions/proposal-reference.validator';
import { AgentEventSink } from './agent/agent-event.sink';
import { HeldEventsSink } from './agent/held-events.sink';
import { AgentResult, RunRecords } from './agent/agent-result';
import { AgentCommit, AgentCommitRequest, AgentRunOutcome, AgentRunRequest, ShrinkContext } from './agent/agent-run';
import { AgentLoop } from './agent/agent.loop';
import { UsageAccumulator } from './agent/usage.accumulator';
import { AutomationRunInput, ChatInput, MENTION_MAX_CHARS, MENTIONS_MAX, ResumeInput } from './chat-input';
import { ContextPart, dataAddedEvent } from './events/data-added.event';
import { plural } from './events/event-wording';
import { HitlObserver } from './hitl.observer';
import { HITL_OBSERVER } from './hitl-observer.token';
import { PendingInterruptSettler, supersededResults } from './interrupts/pending-interrupt.settler';
import { ContextAssembler } from './context/context.assembler';
import { PromptLevelsCache } from './prompts/prompt-levels.cache';
import { joinPromptLevels, PromptLevels } from './prompts/system-prompt.builder';
import { RunPolicy, withoutAutonomous } from './policy/run-policy';
import { HistoryStrategy, SmallerContextBuilder } from './recovery/smaller-context.builder';
import { AgentRunObserver } from './runs/agent-run.observer';
import { AGENT_RUN_OBSERVER } from './runs/agent-run-observer.token';
import { RunOutcome, RunStart, ThreadRun, ThreadRunObserver, ThreadRunSkeleton } from './runs/thread-run.skeleton';
import { RunSchedulingState } from './runs/run-scheduling.metrics';
import { AgentToolbox } from './tools/agent.toolbox';
import { ReadToolExecutor } from './tools/read/read-tool.executor';
import { ThreadView, toThreadView } from './thread.view';

/** Where a run starts from (chat or resume), everything the loop needs besides the shared dependencies. */
interface RunPlan {
  principal: Principal;
  /** Resolved when the run started (the workspace's provider configuration, or the environment's). */
  provider: LlmProvider;
  assertBudget?: (usage: UsageTotals) => void;
  thread: ThreadRecord;
  dataSource: MutableGraphDataSource;
  graph: Graph | null;
  messages: LlmMessage[];
  sink: AgentEventSink;
  run: ThreadRun;
  runId: string;
  retrievedContext?: GraphRAGContext;
  continuation?: AgentRunRequest['continuation'];
  shrinkContext?: ShrinkContext;
  /** The run's action policy (docs/policy.md): what is offered, and what becomes of each proposal. */
  policy: RunPolicy;
  /** Where the run's actions are applied and recorded as ACTIONS_EXECUTED events. */
  actions: AppliedActionRecorder;
}

/** A question stored with the thread created for it, and what its run was given then. */
interface StoredQuestion {
  runId: string;
  provider: LlmProvider;
}

/** What a question's run starts from (ThreadRunSkeleton's `start`). */
interface QuestionStart extends RunStart {
  graph: Graph;
  stored?: StoredQuestion;
}

/** A question stored under the lease, as its answer starts (ChatService.answer). */
interface AnsweredQuestion {
  thread: ThreadRecord;
  provider: LlmProvider;
  runId: string;
  /** The run's sink, holding `ai:thread` and the DATA_ADDED event until the upstream request is written. */
  events: HeldEventsSink;
}

/** How a new conversation is opened (startConversation). */
interface NewConversation {
  graphKey: string;
  title: string;
  origin?: ThreadOrigin;
  message: string;
  providerConfigId?: string;
  assertBudget?: (usage: UsageTotals) => void;
  announce: (threadId: string) => void;
}

/** A question asked on a thread (chat, automation run), with what the run needs besides the thread's lease. */
interface Question {
  principal: Principal;
  dataSource: MutableGraphDataSource;
  graph: Graph;
  /** The thread as loaded before the lease (it is loaded again under it, unless `stored`). */
  thread: ThreadRecord;
  /**
   * This request created the thread with the question in it (startConversation): no one else knows its
   * id before `ai:thread`, so it is neither re-read under the lease nor written again.
   */
  stored?: StoredQuestion;
  message: string;
  mentions: string[];
  sink: AgentEventSink;
  /** Tells the client its thread (`sink.thread`), once the question is stored or right before a refusal. */
  announce: (threadId: string) => void;
  /** An automation's own provider configuration; absent: the workspace's active one. */
  providerConfigId?: string;
  /** An automation's budget, checked before every upstream call with the run's usage so far. */
  assertBudget?: (usage: UsageTotals) => void;
  /** Nobody receives the run's events (an automation): no client can apply an action for it. */
  unattended?: boolean;
}

/**
 * The agent behind both transports (REST collects, the Socket.IO gateway streams): one question or
 * one resume per call, on one thread, with at most one run per thread at a time on any instance.
 *
 * Contract with the transports:
 *  - `sink.thread(threadId)` first: for a question, once its message is stored under the thread's
 *    lease (so a client that got it knows the message is kept), or right before the refusal when the
 *    run cannot start (thread_busy, budget_exceeded: nothing stored); a resume names its thread, so
 *    it gets it at once. Then `token` / `toolStart` / `toolResult` while running; then exactly
 *    one `complete(result)` on success (message, interrupt, or aborted message), AFTER the thread's
 *    run lease was released (a client may resume the moment it sees the interrupt).
 *  - Failures are thrown as AppError (docs/protocol.md codes) and `complete` is not called: the
 *    transport answers ai:error / the HTTP error. Usage is recorded in every case.
 *  - `signal` stops the generation: the upstream request is cancelled and the call resolves
 *    normally with `aborted: true` and the partial text (kept in the thread).
 *  - No per-request state lives here: abort controllers and sinks belong to the transport.
 *  - Runs are admitted into their setup a few at a time (RunSetupGate, first come first served,
 *    never refused), and each setup yields to the event loop before its store work, halfway, and
 *    before the upstream call: a burst of requests cannot stall timers, sockets and streams.
 * Chat, resume and automation runs share that skeleton (ThreadRunSkeleton: setup gate, lease, the commit
 * path of rounds replayed after a revision conflict, usage, logs, run metrics and observers, completion);
 * the settling of a pending interrupt is PendingInterruptSettler's, the applying of an action ActionApplier's
 * (through the run's AppliedActionRecorder, which records each applied series as an ACTIONS_EXECUTED event),
 * what each proposal becomes under the workspace's action policy RunPolicy's (docs/policy.md).
 */
@Injectable()
export class ChatService {
  private readonly events = new AiEventLogger('agent');
  private readonly loop: AgentLoop;
  private readonly skeleton: ThreadRunSkeleton;
  private readonly promptLevels: PromptLevelsCache;
  private readonly context: ContextAssembler;
  private readonly settler: PendingInterruptSettler;
  private readonly applier: ActionApplier;
  private readonly smallerContext: SmallerContextBuilder;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly graphs: GraphDataSourceFactory,
    private readonly retriever: GraphRagRetriever,
    @Inject(LLM_PROVIDER) private readonly provider: LlmProvider,
    private readonly tokenTracker: TokenTracker,
    classifier: LlmErrorClassifier,
    private readonly threads: ThreadService,
    tokenCounter: TokenCounter,
    private readonly policies: ActionPolicyService,
    @Optional() @Inject(HITL_OBSERVER) private readonly hitl?: HitlObserver,
    @Optional() @Inject(AGENT_RUN_OBSERVER) runs?: AgentRunObserver,
    @Optional() @Inject(LLM_PROVIDER_RESOLVER) private readonly providers?: LlmProviderResolver,
    // Conversation memory (docs/memory.md): absent in harnesses that assemble the agent without it.
    @Optional() memoryContext?: MemoryContextBuilder,
    @Optional() private readonly memory?: MemoryService,
    @Optional() notifier?: GraphChangeNotifier,
  ) {
    this.loop = new AgentLoop(
      { provider, tokenTracker, tokenCounter, classifier, events: this.events },
      {
        maxToolRounds: config.agent.maxToolRounds,
        maxTokensPerCall: config.agent.maxTokensPerCall,
        locale: config.locale,
        maxToolCallsPerReply: config.agent.maxToolCallsPerReply,
        noProgressRounds: config.agent.noProgressRounds,
      },
    );
    this.applier = new ActionApplier({
      mode: config.agent.hitlApply,
      graphChanged: (graphKey, workspace) => retriever.clearCache(graphKey, workspace),
    });
    this.settler = new PendingInterruptSettler(hitl, config.locale);
    // A run's committed rounds update its thread's memory, in the background, when no run is in progress.
    this.skeleton = new ThreadRunSkeleton(
      threads,
      new Logger('agent'),
      runs,
      memory && {
        started: () => memory.runStarted(),
        leased: (principal, threadId) => memory.threadResumed(principal, threadId),
        settled: (principal, threadId) => memory.runSettled(principal, threadId),
      },
      {
        setupFirstMaxMs: config.agent.setupFirstMaxMs,
        setupFirstMinWaiting: config.agent.setupFirstMinWaiting,
        streamTurnBudgetMs: config.agent.streamTurnBudgetMs,
      },
    );
    this.promptLevels = new PromptLevelsCache({ graphStateTtlMs: config.rag.cacheTtlMs, notifier });
    this.context = new ContextAssembler(memoryContext ?? null, {
      maxTokens: config.agent.historyMaxTokens,
      countTokens: approximateTokens,
    });
    this.smallerContext = new SmallerContextBuilder(retriever, this.history, {
      locale: config.locale,
      maxNodes: config.rag.maxNodes,
      truncateProcess: DEFAULT_GRAPH_RAG_OPTIONS.truncateProcess,
      truncateData: DEFAULT_GRAPH_RAG_OPTIONS.truncateData,
      historyMaxTokens: config.agent.historyMaxTokens,
    });
  }

  /**
   * One question. Throws (before anything runs) bad_request / payload_too_large (message, mentions),
   * not_found (graph absent from the principal's workspace; thread unknown, someone else's or of
   * another graph), thread_busy (another run holds the thread), budget_exceeded; and while running
   * the classified LLM errors (rate_limit, server_error, auth_error, timeout, network,
   * content_filter, context_length, provider_not_configured, internal). A pending interrupt on the
   * thread is superseded first (a proposal rejected, a question declined, with feedback "superseded by
   * a new message"). The question is stored, under the lease, before `sink.thread` (docs/protocol-notes.md,
   * "When ai:thread comes"); its context and DATA_ADDED event follow in a second commit, the event sent
   * before the model's first token. The run decides with the workspace's action policy as stored now.
   */
  async chat(principal: Principal, input: ChatInput, sink: AgentEventSink, signal: AbortSignal): Promise<AgentResult> {
    const message = this.checkText(input.message, 'message', true);
    const mentions = checkMentions(input.mentions);
    const dataSource = this.graphs.forWorkspace(principal.workspace);
    const announce = (threadId: string) => sink.thread(threadId);
    const start = async (): Promise<QuestionStart> => {
      const graph = await dataSource.getGraph(input.graphKey);
      if (!graph) throw AppError.notFound(`Graph "${input.graphKey}" not found`);
      const started: QuestionStart = input.threadId
        ? { thread: await this.threads.load(principal, input.threadId, input.graphKey), graph }
        : await this.startConversation(principal, dataSource, graph, {
            graphKey: input.graphKey,
            title: deriveThreadTitle(message),
            message,
            announce,
          });
      this.events.debug('agent_chat_start', {
        graphKey: input.graphKey,
        messageLength: message.length,
        threadId: started.thread.threadId,
      });
      return started;
    };
    return this.skeleton.run(
      'chat',
      { principal, sink, signal, refused: announce },
      start,
      ({ thread, graph, stored }, run) =>
        this.ask({ principal, dataSource, graph, thread, stored, message, mentions, sink, announce }, run),
    );
  }

  /**
   * One run of an automation (docs/automations.md): a new thread of type `automation` owned by the
   * automation's creator, asked the resolved prompt through the same steps, loop, policy and budgets as
   * a question, with no socket: `sink` is the automation runner's. The provider is the automation's own
   * configuration, else the workspace's active one. Throws as chat does (not_found when the graph is
   * gone, budget_exceeded, the classified LLM errors).
   */
  async runAutomation(input: AutomationRunInput, sink: AgentEventSink, signal: AbortSignal): Promise<AgentResult> {
    const { principal } = input;
    const dataSource = this.graphs.forWorkspace(principal.workspace);
    const announce = (threadId: string) => sink.thread(threadId);
    const start = async (): Promise<QuestionStart> => {
      const graph = await dataSource.getGraph(input.graphKey);
      if (!graph) throw AppError.notFound(`Graph "${input.graphKey}" not found`);
      const started = await this.startConversation(principal, dataSource, graph, {
        graphKey: input.graphKey,
        title: input.title,
        origin: { type: 'automation', automationId: input.automationId },
        message: input.prompt,
        providerConfigId: input.providerConfigId,
        assertBudget: input.assertBudget,
        announce,
      });
      this.events.debug('agent_automation_start', {
        graphKey: input.graphKey,
        automationId: input.automationId,
        threadId: started.thread.threadId,
      });
      return started;
    };
    return this.skeleton.run(
      'automation',
      { principal, sink, signal, refused: announce },
      start,
      ({ thread, graph, stored }, run) =>
        this.ask(
          {
            principal,
            dataSource,
            graph,
            thread,
            stored,
            message: input.prompt,
            mentions: [],
            sink,
            announce,
            providerConfigId: input.providerConfigId,
            assertBudget: input.assertBudget,
            unattended: true,
          },
          run,
        ),
    );
  }

  /** Runs waiting for their setup, and running streams giving way to them (the metrics read it at each scrape). */
  schedulingState(): RunSchedulingState {
    return this.skeleton.schedulingState();
  }

  /** Told when each run ends (chat, resume, automation), with its thread, result or failure, and usage. */
  observeRuns(observer: ThreadRunObserver): void {
    this.skeleton.observe(observer);
  }

  /**
   * A question on a thread whose lease is held (chat, automation): stored first (superseding a pending
   * interrupt), then its context and DATA_ADDED event, then the loop, under the workspace's action policy
   * as stored now and the provider of the run.
   */
  private async ask(question: Question, run: ThreadRun): Promise<RunOutcome> {
    const { principal, graph, dataSource, message, sink, announce } = question;
    const runId = question.stored?.runId ?? randomUUID();
    let thread = question.thread;
    let provider: LlmProvider;
    if (question.stored) {
      provider = question.stored.provider;
    } else {
      try {
        // Fresh under the lease: the run starts from what is stored now.
        thread = await this.threads.load(principal, question.thread.threadId, question.thread.graphKey);
        provider = await this.checkedProvider(principal, question, run.usage.totals());
        thread = await this.storeQuestion(thread, graph, dataSource, principal, message, runId, run);
      } catch (error) {
        announce(question.thread.threadId);
        throw error;
      }
    }
    // The message is stored: the client may now know the thread. Its first events are held until the
    // upstream request is written (HeldEventsSink), and sent before anything else in every case.
    const events = new HeldEventsSink(sink);
    events.thread(thread.threadId);
    try {
      return await this.answer(question, run, { thread, provider, runId, events });
    } finally {
      events.release();
    }
  }

  /** The rest of a stored question's run: its context and DATA_ADDED event, then the loop. */
  private async answer(question: Question, run: ThreadRun, asked: AnsweredQuestion): Promise<RunOutcome> {
    const { principal, dataSource, graph, message, mentions } = question;
    const { provider, runId, events } = asked;
    let { thread } = asked;
    await run.pause();
    const levels = await this.policies.levelsFor(principal);
    const unattendedClientApply = question.unattended === true && this.config.agent.hitlApply === 'client';
    const policy = new RunPolicy(
      canEdit(principal),
      unattendedClientApply ? withoutAutonomous(levels) : levels,
      false,
      this.config.locale,
    );
    const { context, message: contextContent } = await this.retriever.retrieveWithMessage(
      dataSource,
      thread.graphKey,
      message,
      {
        mentions,
        locale: this.config.locale,
      },
    );
    const promptLevels = await this.promptLevels.levelsFor(dataSource, graph, principal.role, this.config.locale);
    const now = Date.now();
    const contextMessage: ThreadMessage = {
      id: generateMessageId(now),
      role: 'system',
      kind: 'rag_context',
      content: contextContent,
      createdTime: now,
    };
    // Assembled before the context's commit, so that what memory recalls for this message is in its DATA_ADDED event.
    const assembled = await this.context.assemble({
      levels: promptLevels,
      thread,
      currentContext: contextMessage,
      signal: run.signal,
    });
    // What the context of this message held (docs/policy.md "Thread events"), stored right after it.
    const dataAdded = dataAddedEvent({
      context,
      mentions,
      tokens: approximateTokens(contextContent) + assembled.tokens.recalled,
      parts: recalledPart(assembled.recalled),
    });
    thread = (
      await run.commit(thread, {
        operationId: `${runId}:context`,
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
    await run.handOver();
    // This turn builds the upstream request; undici writes it on a kept-alive connection in the next one
    // (it first lets the socket's pending events through); the held events go out in the turn after that.
    setImmediate(() => setImmediate(() => events.release()));
    const outcome = await this.execute({
      principal,
      provider,
      assertBudget: question.assertBudget,
      thread,
      dataSource,
      graph,
      messages: history,
      sink: events,
      run,
      runId,
      retrievedContext: context,
      policy,
      actions: new AppliedActionRecorder(this.applier, dataSource, thread.graphKey, graph.sheetsList ?? {}),
      shrinkContext: () =>
        this.smallerContext.build({
          dataSource,
          thread: withContext,
          question: message,
          mentions,
          levels: promptLevels,
        }),
    });
    if (outcome.type === 'interrupt') this.hitl?.interrupt('proposed');
    return this.toOutcome(thread.threadId, outcome, run.usage, [dataAdded]);
  }

  /** The provider a new run of the workspace uses (docs/provider-configs.md): resolved once, at its start. */
  private providerFor(principal: Principal, configId?: string): Promise<LlmProvider> {
    return this.providers ? this.providers.forRun(principal.workspace, configId) : Promise.resolve(this.provider);
  }

  /**
   * What a question needs before it is stored: the process's budget and the run's own (`usage`: the
   * run's so far) allow it, and its provider (the workspace's configuration, resolved now).
   */
  private async checkedProvider(
    principal: Principal,
    run: { assertBudget?: (usage: UsageTotals) => void; providerConfigId?: string },
    usage: UsageTotals,
  ): Promise<LlmProvider> {
    this.tokenTracker.assertWithinBudget();
    run.assertBudget?.(usage);
    return this.providerFor(principal, run.providerConfigId);
  }

  /**
   * A new conversation (chat, automation), inside its setup slot: the budgets and the provider are
   * checked, then ONE write creates the thread with the run's lease held and the question stored (the
   * system prompt and the user message: ThreadService.createForRun; on the embedded store one
   * transaction instead of three). A refusal by the budgets or the provider still creates the thread,
   * empty, and announces it before the error, as it does on an existing thread (docs/protocol-notes.md,
   * "When ai:thread comes").
   */
  private async startConversation(
    principal: Principal,
    dataSource: MutableGraphDataSource,
    graph: Graph,
    conversation: NewConversation,
  ): Promise<QuestionStart> {
    const { graphKey, title, origin, announce } = conversation;
    let provider: LlmProvider;
    try {
      provider = await this.checkedProvider(principal, conversation, EMPTY_USAGE);
    } catch (error) {
      announce((await this.threads.create(principal, graphKey, title, origin)).threadId);
      throw error;
    }
    const runId = randomUUID();
    const append = await this.questionMessages(null, graph, dataSource, principal, conversation.message);
    const { thread, lease } = await this.threads.createForRun(
      principal,
      graphKey,
      title,
      { operationId: `${runId}:input`, append },
      origin,
    );
    return { thread, graph, lease, stored: { runId, provider } };
  }

  /**
   * The question, stored under the lease before anything else (docs/reliability.md, "Crash"): one
   * commit of the tool results that settle a pending interrupt it supersedes, the system prompt (a
   * thread's first message only) and the user message. Its retrieved context follows in a commit of
   * its own.
   */
  private async storeQuestion(
    thread: ThreadRecord,
    graph: Graph,
    dataSource: MutableGraphDataSource,
    principal: Principal,
    message: string,
    runId: string,
    run: ThreadRun,
  ): Promise<ThreadRecord> {
    const append = await this.questionMessages(thread, graph, dataSource, principal, message);
    const superseded = Boolean(thread.pendingInterrupt);
    const { record } = await run.commit(thread, {
      operationId: `${runId}:input`,
      append,
      ...(superseded ? { pendingInterrupt: null } : {}),
    });
    if (superseded) this.hitl?.interrupt('superseded');
    return record;
  }

  /**
   * What storing a question appends to `thread` (null: a thread created for it): the results that
   * supersede its pending interrupt, the system prompt when it is the thread's first message (the
   * levels as they are now), and the user message.
   */
  private async questionMessages(
    thread: ThreadRecord | null,
    graph: Graph,
    dataSource: MutableGraphDataSource,
    principal: Principal,
    message: string,
  ): Promise<ThreadMessage[]> {
    const now = Date.now();
    const append: ThreadMessage[] = thread?.pendingInterrupt
      ? supersededResults(thread.pendingInterrupt, now, this.config.locale)
      : [];
    if (!thread || thread.messages.length === 0) {
      const prompt = joinPromptLevels(
        await this.promptLevels.levelsFor(dataSource, graph, principal.role, this.config.locale),
      );
      append.push({
        id: generateMessageId(now),
        role: 'system',
        kind: 'system_prompt',
        content: prompt,
        createdTime: now,
      });
    }
    append.push({ id: generateMessageId(now), role: 'user', content: message, createdTime: now });
    return append;
  }

  /**
   * The human's answer to the pending interrupt. Throws not_found (thread unknown or not the
   * principal's), thread_busy (a run, e.g. a racing resume, holds the thread), conflict "no pending
   * interrupt" (nothing to resume, e.g. a racing resume already did), forbidden (a viewer answering a
   * proposal: the owner answers a question whatever their role), bad_request (an answer a question
   * does not accept: nothing changes, it stays pending), plus the errors of the continued run.
   * Approved with HITL_APPLY=server: the preview is applied in one transaction; a failure (node
   * gone...) becomes a `failed` tool result, not an error. The decision is committed exactly once (the
   * commit clears the pending interrupt under the lease), then the rest of the model's batch runs and
   * the conversation continues, under the action policy the run started with.
   */
  async resume(
    principal: Principal,
    input: ResumeInput,
    sink: AgentEventSink,
    signal: AbortSignal,
  ): Promise<AgentResult> {
    // The request names its thread: ai:thread comes first whatever follows (docs/protocol.md §4 "always for ai:resume");
    // an unknown and someone else's thread both get it, so it tells nothing.
    sink.thread(input.threadId);
    const feedback = input.feedback === undefined ? undefined : this.checkText(input.feedback, 'feedback', false);
    const answer = input.answer === undefined ? undefined : this.checkText(input.answer, 'answer', false);
    const start = async () => ({ thread: await this.threads.load(principal, input.threadId) });
    return this.skeleton.run('resume', { principal, sink, signal }, start, async ({ thread: known }, run) => {
      const thread = await this.threads.load(principal, known.threadId);
      const startedAt = performance.now();
      const pending = thread.pendingInterrupt;
      if (!pending) throw AppError.conflict('No pending interrupt on this thread', { threadId: thread.threadId });
      if (pending.interrupt.kind === 'approval' && !canEdit(principal)) {
        throw AppError.forbidden('Only editors and admins can approve or reject proposals');
      }
      this.tokenTracker.assertWithinBudget();
      const provider = await this.providerFor(principal);

      const dataSource = this.graphs.forWorkspace(principal.workspace);
      const graph = await dataSource.getGraph(thread.graphKey);
      const levels: PromptLevels | null = graph
        ? await this.promptLevels.levelsFor(dataSource, graph, principal.role, this.config.locale)
        : null;
      // The run goes on with the policy it stopped under (a pending interrupt made under it stays resolvable).
      const policy = pending.policy
        ? RunPolicy.restore(canEdit(principal), pending.policy, this.config.locale)
        : new RunPolicy(canEdit(principal), await this.policies.levelsFor(principal), false, this.config.locale);
      const actions = new AppliedActionRecorder(this.applier, dataSource, thread.graphKey, graph?.sheetsList ?? {});
      const { content, resolution, confirmed, success } = await this.settler.settle(
        pending,
        { approved: input.approved, feedback, answer },
        actions,
      );
      if (confirmed) policy.grantAskFirst();
      const toolCallId = pending.interrupt.toolCallId;
      sink.toolStart(toolCallId, pending.toolName);
      sink.toolResult(toolCallId, content);
      const decided: LlmToolMessage = {
        role: 'tool',
        tool_call_id: toolCallId,
        name: pending.toolName,
        content,
        success,
        durationMs: Math.round(performance.now() - startedAt),
      };

      const { messages } = await this.context.assemble({ levels, thread, signal: run.signal });
      const history = withoutPendingResults(messages, pending);
      const question = thread.messages.findLast((message) => message.role === 'user')?.content ?? '';
      await run.handOver();
      const outcome = await this.execute({
        principal,
        provider,
        thread,
        dataSource,
        graph,
        messages: history,
        sink,
        run,
        runId: randomUUID(),
        continuation: { results: [decided], remainingToolCalls: pending.remainingToolCalls },
        policy,
        actions,
        shrinkContext: async () =>
          withoutPendingResults(await this.smallerContext.build({ dataSource, thread, question, levels }), pending),
      });
      if (outcome.type === 'interrupt') this.hitl?.interrupt('proposed');
      const { result, stats } = this.toOutcome(thread.threadId, outcome, run.usage);
      return { result: { ...result, ...(resolution ? { resolution } : {}) }, stats };
    });
  }

  /** The principal's threads of a graph, newest first (POST /api/ai/threads). */
  listThreads(principal: Principal, graphKey: string): Promise<ThreadSummary[]> {
    return this.threads.list(principal, graphKey);
  }

  /** GET /api/ai/thread/:threadId (system and context messages left out); not_found when not the principal's. */
  async getThread(principal: Principal, threadId: string): Promise<ThreadView> {
    return toThreadView(await this.threads.load(principal, threadId));
  }

  /** DELETE /api/ai/thread/:threadId, with its memory (MemoryService deletes that first); not_found when not the principal's. */
  async deleteThread(principal: Principal, threadId: string): Promise<void> {
    if (this.memory) await this.memory.deleteThread(principal, threadId);
    else await this.threads.delete(principal, threadId);
  }

  /** Runs the loop on a thread whose lease is held, committing each round through the run's commit path. */
  private execute(plan: RunPlan): Promise<AgentRunOutcome> {
    const { thread, dataSource, run } = plan;
    let current = thread;
    let converter: Promise<ActionConverter> | null = null;
    const locale = this.config.locale;
    const references = new ProposalReferenceValidator(dataSource, thread.graphKey, locale);
    const toolbox = new AgentToolbox({
      policy: plan.policy,
      readTools: new ReadToolExecutor(dataSource, thread.graphKey, {}, locale),
      toolsSupported: !plan.provider.offline,
      locale,
    });
    return this.loop.run({
      provider: plan.provider,
      assertBudget: plan.assertBudget,
      messages: plan.messages,
      tools: toolbox,
      events: plan.sink,
      signal: run.signal,
      streamPacer: () => run.streamPacer(),
      usage: run.usage,
      threadId: thread.threadId,
      workspace: thread.workspace,
      runId: plan.runId,
      retrievedContext: plan.retrievedContext,
      continuation: plan.continuation,
      shrinkContext: plan.shrinkContext,
      commit: async (commit: AgentCommitRequest) => {
        // An interrupt keeps the run's policy, so its resume goes on under it.
        const pendingInterrupt = commit.pendingInterrupt
          ? { ...commit.pendingInterrupt, policy: plan.policy.snapshot() }
          : commit.pendingInterrupt;
        const receipt = await run.commit(current, {
          operationId: commit.operationId,
          append: toThreadMessages(commit),
          ...(pendingInterrupt !== undefined ? { pendingInterrupt } : {}),
        });
        current = receipt.record;
        return { applied: receipt.applied, replays: receipt.replays };
      },
      actions: plan.actions,
      checkProposal: (action: ProposedAction) => references.validate(action),
      preview: async (action: ProposedAction, toolCallId: string): Promise<ActionConversionResult> => {
        converter ??= dataSource.getNodeConfigs().then((configs) => new ActionConverter(configs));
        const sheet = await defaultSheetOf(action, dataSource, thread.graphKey, plan.graph);
        // The thread id in the key seed keeps generated keys distinct across threads that reuse call ids (docs/agent.md).
        return (await converter).convert(action, thread.graphKey, sheet, `${thread.threadId}:${toolCallId}`);
      },
    });
  }

  /**
   * What the model is sent on a context-length retry with a smaller budget (the HistoryStrategy of
   * SmallerContextBuilder): the same assembly as every request (ContextAssembler: prompt levels,
   * memory's summaries and recall, history, the current context), within `maxTokens`.
   */
  private readonly history: HistoryStrategy = async (thread, currentContext, maxTokens, levels) =>
    (await this.context.assemble({ levels: levels ?? null, thread, currentContext, maxTokens })).messages;

  /** The answer and how the run went. `earlier`: events the request wrote before the loop (the question's DATA_ADDED). */
  private toOutcome(
    threadId: string,
    outcome: AgentRunOutcome,
    usage: UsageAccumulator,
    earlier: ThreadEvent[] = [],
  ): RunOutcome {
    const events = [...earlier, ...outcome.events];
    const records: RunRecords = {
      ...(events.length > 0 ? { events } : {}),
      ...(outcome.actions.length > 0 ? { actions: outcome.actions } : {}),
    };
    const stats = outcome.stats;
    if (outcome.type === 'interrupt') {
      const result: AgentResult = {
        threadId,
        type: 'interrupt',
        message: outcome.text,
        interrupt: outcome.interrupt,
        toolCalls: outcome.toolCalls,
        usage: usage.report(),
        ...records,
      };
      return { result, stats };
    }
    const result: AgentResult = {
      threadId,
      type: 'message',
      message: outcome.text,
      toolCalls: outcome.toolCalls,
      usage: usage.report(),
      ...(outcome.aborted ? { aborted: true as const } : {}),
      ...records,
    };
    return { result, stats };
  }

  private checkText(value: string, field: string, required: boolean): string {
    if (typeof value !== 'string') throw AppError.badRequest(`${field} must be a string`);
    if (required && value.trim().length === 0) throw AppError.badRequest(`${field} must not be empty`);
    const max = this.config.limits.messageMaxChars;
    if (value.length > max) throw new AppError('payload_too_large', `${field} is longer than ${max} characters`);
    return value;
  }
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

function checkMentions(mentions: string[] | undefined): string[] {
  if (mentions === undefined) return [];
  if (!Array.isArray(mentions) || mentions.length > MENTIONS_MAX) {
    throw AppError.badRequest(`mentions must be an array of at most ${MENTIONS_MAX} node keys`);
  }
  for (const key of mentions) {
    if (typeof key !== 'string' || key.length === 0 || key.length > MENTION_MAX_CHARS) {
      throw AppError.badRequest(`mentions must hold node keys of 1 to ${MENTION_MAX_CHARS} characters`);
    }
  }
  return [...new Set(mentions)];
}

/**
 * The history sanitizer gives every unanswered call a placeholder result; on resume the pending
 * call and the rest of its batch are answered by the run itself, so their placeholders (the
 * trailing tool messages) go.
 */
function withoutPendingResults(messages: LlmMessage[], pending: PendingInterrupt): LlmMessage[] {
  const ids = new Set([pending.interrupt.toolCallId, ...pending.remainingToolCalls.map((call) => call.id)]);
  const result = [...messages];
  while (result.length > 0) {
    const last = result[result.length - 1];
    if (last.role !== 'tool' || !ids.has((last as LlmToolMessage).tool_call_id)) break;
    result.pop();
  }
  return result;
}

function toThreadMessages(commit: AgentCommit): ThreadMessage[] {
  const createdTime = Date.now();
  return [
    ...commit.messages.map((message) =>
      toThreadMessage(message, { createdTime, aborted: commit.aborted === true && message.role === 'assistant' }),
    ),
    ...(commit.events ?? []).map((event) => toEventMessage(event, createdTime)),
  ];
}

/**
 * The sheet of a proposal without one of its own (move/update/delete): the sheet of the node or
 * edge it touches, else the graph's first sheet.
 */
async function defaultSheetOf(
  action: ProposedAction,
  dataSource: MutableGraphDataSource,
  graphKey: string,
  graph: Graph | null,
): Promise<string> {
  const fallback = Object.keys(graph?.sheetsList ?? {})[0] ?? '0';
  let target: ProposedAction | undefined = action;
  while (target?.type === 'batch') target = target.payload.actions[0];
  if (!target) return fallback;
  switch (target.type) {
    case 'move_node':
    case 'update_node':
    case 'delete_node':
      return (await dataSource.getNodeByKey(graphKey, target.payload.nodeKey))?.sheet ?? fallback;
    case 'delete_edge': {
      const edgeKey = target.payload.edgeKey;
      return (await dataSource.getEdges(graphKey)).find((edge) => edge._key === edgeKey)?.sheet ?? fallback;
    }
    default:
      return fallback;
  }
}
