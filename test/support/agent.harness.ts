import type { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ApplyRequest } from '../../src/ai/actions/checked-action';
import { AgentEventSink } from '../../src/ai/agent/agent-event.sink';
import { AgentResult } from '../../src/ai/agent/agent-result';
import { AgentLoop } from '../../src/ai/agent/agent.loop';
import { BlockDataExecutor } from '../../src/ai/blocks/block-data.executor';
import { AlwaysSendService } from '../../src/always-send/always-send.service';
import { SqliteAlwaysSendRepository } from '../../src/always-send/sqlite/sqlite-always-send.repository';
import { AutomationRunInput, ChatInput, RestoreInput, ResumeInput, UndoInput } from '../../src/ai/chat-input';
import { ContextAssembler } from '../../src/ai/context/context.assembler';
import { HitlObserver } from '../../src/ai/hitl.observer';
import { PendingInterruptSettler } from '../../src/ai/interrupts/pending-interrupt.settler';
import { PromptLevelsCache } from '../../src/ai/prompts/prompt-levels.cache';
import { SmallerContextBuilder } from '../../src/ai/recovery/smaller-context.builder';
import { AgentRunExecutor } from '../../src/ai/runs/agent-run.executor';
import { AgentRunObserver } from '../../src/ai/runs/agent-run.observer';
import { AutomationRuns } from '../../src/ai/runs/automation-runs.port';
import { QuestionRun } from '../../src/ai/runs/question.run';
import { ThreadRunner } from '../../src/ai/runs/thread-runner';
import { ThreadChangeView } from '../../src/ai/thread-changes.view';
import { ThreadView } from '../../src/ai/thread.view';
import { AskQuestion } from '../../src/ai/use-cases/ask-question.use-case';
import { ResumeInterrupt } from '../../src/ai/use-cases/resume-interrupt.use-case';
import { RevertChanges, RevertEvents, RevertResult } from '../../src/ai/use-cases/revert-changes.use-case';
import { RunAutomation } from '../../src/ai/use-cases/run-automation.use-case';
import { ThreadQueries } from '../../src/ai/use-cases/thread-queries.use-case';
import { Principal } from '../../src/auth/principal';
import { OperationService } from '../../src/changes/operation.service';
import { SqliteOperationRepository } from '../../src/changes/sqlite/sqlite-operation.repository';
import { AppConfig } from '../../src/config/app-config';
import { loadAppConfig } from '../../src/config/load-app-config';
import { ProviderRegistry } from '../../src/config/provider-registry';
import { ThreadEvent } from '../../src/conversation/thread-event';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { nbaWorkflowDemo } from '../../src/graph/demo/nba-workflow.demo';
import { GraphChangeNotifier } from '../../src/graph/graph-change.notifier';
import { GraphDataSourceFactory } from '../../src/graph/graph-data-source.factory';
import { MutableGraphDataSource } from '../../src/graph/mutable-graph-data-source';
import { LiveOverlayRegistry } from '../../src/graph/overlay/live-overlay.registry';
import { SqliteGraphStore } from '../../src/graph/sqlite/sqlite-graph.store';
import { configureLogging, Logger } from '../../src/observability/logger';
import { ActionPolicyService } from '../../src/policy/action-policy.service';
import { SqliteActionPolicyRepository } from '../../src/policy/sqlite/sqlite-action-policy.repository';
import { LlmErrorClassifier } from '../../src/providers/llm-error.classifier';
import { LlmProvider } from '../../src/providers/llm-provider';
import { createLlmProvider } from '../../src/providers/llm-provider.factory';
import { selectLlmProvider } from '../../src/providers/llm-provider.selector';
import { TokenTracker } from '../../src/providers/token.tracker';
import { approximateTokens } from '../../src/providers/token-estimate';
import { DEFAULT_GRAPH_RAG_OPTIONS } from '../../src/rag/graph-rag-options';
import { GraphRagRetriever } from '../../src/rag/graph-rag.retriever';
import { TokenCounter } from '../../src/rag/token-counter';
import { SqliteThreadRepository } from '../../src/threads/sqlite/sqlite-thread.repository';
import { ThreadRepository } from '../../src/threads/thread.repository';
import { ThreadService } from '../../src/threads/thread.service';
import { ThreadSummary } from '../../src/threads/thread.types';

export interface AgentHarnessOptions {
  /** Environment on top of NODE_ENV=test, AUTH_MODE=none, LOG_LEVEL=error (e.g. a scripted server's providerEnv). */
  env?: Record<string, string>;
  /** Share a data directory with another harness (roaming, restart); a fresh temp dir otherwise. */
  dataDir?: string;
  /** Import the demo graph (default true; skipped when the store already has it). */
  seedDemo?: boolean;
  /** Wraps the thread repository (fault injection). */
  wrapRepository?: (repository: ThreadRepository) => ThreadRepository;
  /** Wraps the LLM provider (instrumentation). */
  wrapProvider?: (provider: LlmProvider) => LlmProvider;
  /** Told about each human-in-the-loop step (metrics). */
  hitl?: HitlObserver;
  /** Told how each run ended and how each commit conflict went (metrics). */
  runs?: AgentRunObserver;
  /** The automations, as the agent sees them (an automation run's resume). */
  automations?: AutomationRuns;
}

/** The agent's use cases, as the transports call them. */
export interface AgentUseCases {
  chat(principal: Principal, input: ChatInput, sink: AgentEventSink, signal: AbortSignal): Promise<AgentResult>;
  resume(principal: Principal, input: ResumeInput, sink: AgentEventSink, signal: AbortSignal): Promise<AgentResult>;
  runAutomation(input: AutomationRunInput, sink: AgentEventSink, signal: AbortSignal): Promise<AgentResult>;
  listThreads(principal: Principal, graphKey: string): Promise<ThreadSummary[]>;
  getThread(principal: Principal, threadId: string): Promise<ThreadView>;
  deleteThread(principal: Principal, threadId: string): Promise<void>;
  changes(principal: Principal, threadId: string): Promise<ThreadChangeView[]>;
  undo(principal: Principal, input: UndoInput, events?: RevertEvents): Promise<RevertResult>;
  restore(principal: Principal, input: RestoreInput, events?: RevertEvents): Promise<RevertResult>;
}

/**
 * The agent's use cases assembled by hand from the real parts, as AiModule's factories assemble them in one service
 * process: a SQLite file (graph store, thread repository and change log, one connection), the retriever, the LLM
 * provider chosen from the environment by the real selector (point it at a ScriptedLlmServer), the token tracker with
 * the registry's pricing. Several harnesses on one data directory play several instances of the service.
 */
export class AgentHarness {
  private constructor(
    readonly config: AppConfig,
    readonly agent: AgentUseCases,
    readonly db: Database,
    readonly graphStore: SqliteGraphStore,
    readonly threadService: ThreadService,
    readonly retriever: GraphRagRetriever,
    readonly provider: LlmProvider,
    readonly tokenTracker: TokenTracker,
    readonly operations: OperationService,
    readonly alwaysSend: AlwaysSendService,
    readonly promptLevels: PromptLevelsCache,
    private readonly ownsDataDir: boolean,
  ) {}

  static async create(options: AgentHarnessOptions = {}): Promise<AgentHarness> {
    configureLogging({ level: 'error' });
    const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'agent-harness-'));
    const config = loadAppConfig({
      NODE_ENV: 'test',
      AUTH_MODE: 'none',
      LOG_LEVEL: 'error',
      ...options.env,
      DATA_DIR: dataDir,
    });
    const db = openSqliteDatabase(dataDir);
    const graphStore = new SqliteGraphStore(db);
    if ((options.seedDemo ?? true) && !(await graphStore.exportGraph('default', nbaWorkflowDemo.graph._key))) {
      await graphStore.importGraph('default', nbaWorkflowDemo);
    }
    const repository = new SqliteThreadRepository(db);
    const threadService = new ThreadService(
      options.wrapRepository ? options.wrapRepository(repository) : repository,
      config,
    );
    const registry = ProviderRegistry.load();
    const selected = createLlmProvider(selectLlmProvider(config, registry), {
      locale: config.locale,
      maxRetries: config.agent.maxRetries,
      backoff: { baseDelayMs: 1, maxDelayMs: 5 },
    });
    const provider = options.wrapProvider ? options.wrapProvider(selected) : selected;
    const tokenTracker = new TokenTracker({
      pricingFor: (name) => registry.get(name)?.pricing,
      limits: {
        maxTokensPerCall: config.agent.maxTokensPerCall,
        maxTotalTokens: config.agent.maxTotalTokens,
        maxCostUsd: config.agent.maxCostUsd,
      },
      locale: config.locale,
    });
    const retriever = new GraphRagRetriever({
      maxNodes: config.rag.maxNodes,
      maxDepth: config.rag.maxDepth,
      cacheTTLMs: config.rag.cacheTtlMs,
      embeddingProvider: null,
    });
    const notifier = new GraphChangeNotifier();
    const graphs = new GraphDataSourceFactory(graphStore, new LiveOverlayRegistry(), notifier);
    const operations = new OperationService(
      new SqliteOperationRepository(db, graphStore),
      graphStore,
      graphs,
      notifier,
    );
    const loop = new AgentLoop(
      { provider, tokenTracker, tokenCounter: new TokenCounter(), classifier: new LlmErrorClassifier(config.locale) },
      {
        maxToolRounds: config.agent.maxToolRounds,
        maxTokensPerCall: config.agent.maxTokensPerCall,
        locale: config.locale,
        maxToolCallsPerReply: config.agent.maxToolCallsPerReply,
        noProgressRounds: config.agent.noProgressRounds,
      },
    );
    const runner = new ThreadRunner(
      threadService,
      new Logger('agent'),
      options.runs,
      undefined,
      options.automations ? (end) => options.automations!.runEnded(end) : undefined,
      {
        setupFirstMaxMs: config.agent.setupFirstMaxMs,
        setupFirstMinWaiting: config.agent.setupFirstMinWaiting,
        streamTurnBudgetMs: config.agent.streamTurnBudgetMs,
      },
    );
    const alwaysSend = new AlwaysSendService(new SqliteAlwaysSendRepository(db));
    const promptLevels = new PromptLevelsCache({
      graphStateTtlMs: config.rag.cacheTtlMs,
      notifier,
      alwaysSend: {
        listOf: (workspace, graphKey) => alwaysSend.get(workspace, graphKey),
        maxTokens: config.agent.alwaysSendMaxTokens,
        countTokens: approximateTokens,
      },
    });
    const context = new ContextAssembler(null, {
      maxTokens: config.agent.historyMaxTokens,
      countTokens: approximateTokens,
    });
    const smallerContext = new SmallerContextBuilder(retriever, context, {
      locale: config.locale,
      maxNodes: config.rag.maxNodes,
      truncateProcess: DEFAULT_GRAPH_RAG_OPTIONS.truncateProcess,
      truncateData: DEFAULT_GRAPH_RAG_OPTIONS.truncateData,
      historyMaxTokens: config.agent.historyMaxTokens,
    });
    const executor = new AgentRunExecutor(loop, operations, retriever, config);
    const policies = new ActionPolicyService(new SqliteActionPolicyRepository(db));
    const providers = { forRun: async () => provider };
    const questions = new QuestionRun({
      config,
      graphs,
      retriever,
      threads: threadService,
      policies,
      tokenTracker,
      providers,
      promptLevels,
      context,
      smallerContext,
      operations,
      runner,
      executor,
      blocks: new BlockDataExecutor({ locale: config.locale, truncateData: DEFAULT_GRAPH_RAG_OPTIONS.truncateData }),
      hitl: options.hitl,
    });
    const askQuestion = new AskQuestion(questions, config);
    const runAutomation = new RunAutomation(questions);
    const resumeInterrupt = new ResumeInterrupt({
      config,
      graphs,
      threads: threadService,
      policies,
      tokenTracker,
      providers,
      promptLevels,
      context,
      smallerContext,
      settler: new PendingInterruptSettler(options.hitl, config.locale),
      runner,
      executor,
      hitl: options.hitl,
      automations: options.automations,
    });
    const queries = new ThreadQueries(threadService, operations);
    const reverts = new RevertChanges(threadService, operations, retriever, config);
    const agent: AgentUseCases = {
      chat: (principal, input, sink, signal) => askQuestion.execute(principal, input, sink, signal),
      resume: (principal, input, sink, signal) => resumeInterrupt.execute(principal, input, sink, signal),
      runAutomation: (input, sink, signal) => runAutomation.execute(input, sink, signal),
      listThreads: (principal, graphKey) => queries.listThreads(principal, graphKey),
      getThread: (principal, threadId) => queries.getThread(principal, threadId),
      deleteThread: (principal, threadId) => queries.deleteThread(principal, threadId),
      changes: (principal, threadId) => queries.listChanges(principal, threadId),
      undo: (principal, input, events) => reverts.undo(principal, input, events),
      restore: (principal, input, events) => reverts.restore(principal, input, events),
    };
    return new AgentHarness(
      config,
      agent,
      db,
      graphStore,
      threadService,
      retriever,
      provider,
      tokenTracker,
      operations,
      alwaysSend,
      promptLevels,
      !options.dataDir,
    );
  }

  get dataDir(): string {
    return (this.config.store as { dataDir: string }).dataDir;
  }

  graph(workspace = 'default'): MutableGraphDataSource {
    return this.graphStore.forWorkspace(workspace);
  }

  /** Closes this instance (releasing its leases); removes the data directory when it created it, unless keepData. */
  async close(options: { keepData?: boolean } = {}): Promise<void> {
    await this.threadService.beforeApplicationShutdown();
    await this.graphStore.close();
    if (this.db.open) this.db.close();
    if (this.ownsDataDir && !options.keepData) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** Everything a sink received, in order, plus the terminal result. */
export class RecordingSink implements AgentEventSink {
  readonly events: Array<
    | { type: 'thread'; threadId: string }
    | { type: 'token'; text: string }
    | { type: 'tool_start'; toolCallId: string; toolName: string }
    | { type: 'tool_result'; toolCallId: string; result: string }
    | { type: 'event'; event: ThreadEvent }
    | { type: 'apply'; action: ApplyRequest }
    | { type: 'complete'; result: AgentResult }
  > = [];

  thread(threadId: string): void {
    this.events.push({ type: 'thread', threadId });
  }

  token(text: string): void {
    this.events.push({ type: 'token', text });
  }

  toolStart(toolCallId: string, toolName: string): void {
    this.events.push({ type: 'tool_start', toolCallId, toolName });
  }

  toolResult(toolCallId: string, result: string): void {
    this.events.push({ type: 'tool_result', toolCallId, result });
  }

  event(event: ThreadEvent): void {
    this.events.push({ type: 'event', event });
  }

  apply(action: ApplyRequest): void {
    this.events.push({ type: 'apply', action });
  }

  complete(result: AgentResult): void {
    this.events.push({ type: 'complete', result });
  }

  get text(): string {
    return this.events.map((event) => (event.type === 'token' ? event.text : '')).join('');
  }

  get types(): string[] {
    return this.events.map((event) => event.type);
  }

  get completed(): AgentResult | undefined {
    const last = this.events.find((event) => event.type === 'complete');
    return last?.type === 'complete' ? last.result : undefined;
  }
}
