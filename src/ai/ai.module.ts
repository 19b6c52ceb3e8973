import { Module } from '@nestjs/common';
import { AlwaysSendModule } from '../always-send/always-send.module';
import { AlwaysSendService } from '../always-send/always-send.service';
import { AuthModule } from '../auth/auth.module';
import { OperationService } from '../changes/operation.service';
import { ChangesModule } from '../changes/changes.module';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { GraphChangeNotifier } from '../graph/graph-change.notifier';
import { GraphDataSourceFactory } from '../graph/graph-data-source.factory';
import { GraphModule } from '../graph/graph.module';
import { MemoryContextBuilder } from '../memory/memory-context.builder';
import { MemoryModule } from '../memory/memory.module';
import { MemoryService } from '../memory/memory.service';
import { AiEventLogger } from '../observability/ai-event.logger';
import { Logger } from '../observability/logger';
import { GenAiTracer } from '../observability/tracing/gen-ai.tracer';

/** The spans' tracer (TracingModule, global); absent where the module is built without it: nothing is traced. */
const OPTIONAL_TRACER = { token: GenAiTracer, optional: true };
import { MetricsService } from '../observability/metrics.service';
import { ObservabilityModule } from '../observability/observability.module';
import { ActionPolicyService } from '../policy/action-policy.service';
import { PolicyModule } from '../policy/policy.module';
import { ProviderConfigsModule } from '../providers/configs/provider-configs.module';
import { LlmErrorClassifier } from '../providers/llm-error.classifier';
import { LlmProvider } from '../providers/llm-provider';
import { LLM_PROVIDER_RESOLVER, LlmProviderResolver } from '../providers/llm-provider.resolver';
import { LLM_PROVIDER } from '../providers/llm-provider.token';
import { ProvidersModule } from '../providers/providers.module';
import { TokenTracker } from '../providers/token.tracker';
import { approximateTokens } from '../providers/token-estimate';
import { DEFAULT_GRAPH_RAG_OPTIONS } from '../rag/graph-rag-options';
import { GraphRagRetriever } from '../rag/graph-rag.retriever';
import { RagModule } from '../rag/rag.module';
import { TokenCounter } from '../rag/token-counter';
import { RedisConnection } from '../redis/redis-connection';
import { REDIS_CONNECTION } from '../redis/redis-connection.token';
import { ThreadService } from '../threads/thread.service';
import { ThreadsModule } from '../threads/threads.module';
import { RequestRateLimiter } from '../auth/request-rate.limiter';
import { RagContextService } from '../rag/rag-context.service';
import { AgentLoop } from './agent/agent.loop';
import { BlockDataExecutor } from './blocks/block-data.executor';
import { ContextAssembler } from './context/context.assembler';
import { HitlMetrics } from './hitl.metrics';
import { HitlObserver } from './hitl.observer';
import { HITL_OBSERVER } from './hitl-observer.token';
import { AiController } from './http/ai.controller';
import { AlwaysSendController } from './http/always-send.controller';
import { PendingInterruptSettler } from './interrupts/pending-interrupt.settler';
import { GraphResourceReader } from './mcp/graph-resource.reader';
import { McpController } from './mcp/mcp.controller';
import { McpMetrics } from './mcp/mcp.metrics';
import { createMcpServer } from './mcp/mcp-server.factory';
import { McpSessionRegistry } from './mcp/mcp-session.registry';
import { RedisMcpSessionRepository } from './mcp/redis-mcp-session.repository';
import { McpToolDispatcher } from './mcp/mcp-tool.dispatcher';
import { PromptLevelsCache } from './prompts/prompt-levels.cache';
import { SmallerContextBuilder } from './recovery/smaller-context.builder';
import { ActiveGenerationsMetrics } from './runs/active-generations.metrics';
import { ActiveRunRegistry } from './runs/active-run.registry';
import { AgentRunExecutor } from './runs/agent-run.executor';
import { AgentRunMetrics } from './runs/agent-run.metrics';
import { AgentRunObserver } from './runs/agent-run.observer';
import { AGENT_RUN_OBSERVER } from './runs/agent-run-observer.token';
import { AUTOMATION_RUNS, AutomationRuns } from './runs/automation-runs.port';
import { DegradableRunEventLog } from './runs/degradable-run-event.log';
import { InMemoryRunEventLog } from './runs/in-memory-run-event.log';
import { QuestionRun } from './runs/question.run';
import { RedisRunEventLog } from './runs/redis-run-event.log';
import { MAX_EVENTS_PER_RUN, RunEventLog } from './runs/run-event.log';
import { RUN_EVENT_LOG } from './runs/run-event-log.token';
import { RunSchedulingMetrics } from './runs/run-scheduling.metrics';
import { ThreadRunner } from './runs/thread-runner';
import { InMemoryThreadTurnQueue } from './runs/in-memory-thread-turn.queue';
import { RedisThreadTurnQueue } from './runs/redis-thread-turn.queue';
import { ThreadTurnScheduler } from './runs/thread-turn.scheduler';
import { AiGateway } from './socket/ai.gateway';
import { ApprovalPendingNotifier } from './socket/approval-pending.notifier';
import { RunControl } from './socket/run-control';
import { SocketMetrics } from './socket/socket.metrics';
import { UiChatController } from './ui-stream/ui-chat.controller';
import { AskQuestion } from './use-cases/ask-question.use-case';
import { ManageAlwaysSend } from './use-cases/manage-always-send.use-case';
import { ProposeChange } from './use-cases/propose-change.use-case';
import { ResumeInterrupt } from './use-cases/resume-interrupt.use-case';
import { RevertChanges } from './use-cases/revert-changes.use-case';
import { RunAutomation } from './use-cases/run-automation.use-case';
import { ThreadQueries } from './use-cases/thread-queries.use-case';

/**
 * The agent: one small class per use case, each a clean entry point
 * for any transport (the REST controller, the Socket.IO gateway, the automations): AskQuestion (start or continue a
 * conversation), ResumeInterrupt, RunAutomation, ThreadQueries, RevertChanges (undo, restore). The chat and the
 * automation run share the QuestionRun; every use case that runs the loop shares the ThreadRunner (setup gate,
 * leases, commits, usage, the end of a run) and the AgentRunExecutor (tools, actions through THE OperationService,
 * commits). ProposeChange is a change an MCP client proposes, under the same policy (the MCP server: McpController,
 * one server per session in McpSessionRegistry). All plain classes, wired here with factories; nothing is created with `new` inside an injectable.
 * The automations are told of runs on their threads through AUTOMATION_RUNS (provided by AutomationsModule when it
 * runs): an injected port, called down; the automations call RunAutomation, never registered from below.
 * Metrics, registered on the application's registry: interrupts (HitlMetrics, under HITL_OBSERVER), runs by stop
 * reason, answer efficiency and commit conflicts (AgentRunMetrics, under AGENT_RUN_OBSERVER), socket requests
 * (SocketMetrics, in the gateway), the running generations and the run scheduling read at each scrape. The request
 * event log that `ai:rejoin` replays (RUN_EVENT_LOG) and RunControl are per instance without REDIS_URL, shared
 * through Redis with it.
 */
@Module({
  imports: [
    GraphModule,
    RagModule,
    ProvidersModule,
    ProviderConfigsModule,
    ThreadsModule,
    PolicyModule,
    MemoryModule,
    ChangesModule,
    AlwaysSendModule,
    AuthModule,
    ObservabilityModule,
  ],
  controllers: [AiController, UiChatController, McpController, AlwaysSendController],
  providers: [
    ActiveRunRegistry,
    AiGateway,
    ApprovalPendingNotifier,
    {
      provide: AgentLoop,
      inject: [APP_CONFIG, LLM_PROVIDER, TokenTracker, TokenCounter, LlmErrorClassifier, OPTIONAL_TRACER],
      useFactory: (
        config: AppConfig,
        provider: LlmProvider,
        tokenTracker: TokenTracker,
        tokenCounter: TokenCounter,
        classifier: LlmErrorClassifier,
        tracer: GenAiTracer | null,
      ) =>
        new AgentLoop(
          {
            provider,
            tokenTracker,
            tokenCounter,
            classifier,
            events: new AiEventLogger('agent'),
            tracer: tracer ?? undefined,
          },
          {
            maxToolRounds: config.agent.maxToolRounds,
            maxTokensPerCall: config.agent.maxTokensPerCall,
            locale: config.locale,
            maxToolCallsPerReply: config.agent.maxToolCallsPerReply,
            noProgressRounds: config.agent.noProgressRounds,
          },
        ),
    },
    {
      provide: ThreadRunner,
      inject: [
        APP_CONFIG,
        ThreadService,
        AGENT_RUN_OBSERVER,
        MemoryService,
        OPTIONAL_TRACER,
        { token: AUTOMATION_RUNS, optional: true },
      ],
      useFactory: (
        config: AppConfig,
        threads: ThreadService,
        observer: AgentRunObserver,
        memory: MemoryService,
        tracer: GenAiTracer | null,
        automations: AutomationRuns | null,
      ) =>
        new ThreadRunner(
          threads,
          new Logger('agent'),
          observer,
          // A run's committed rounds update its thread's memory, in the background, when no run is in progress.
          {
            started: () => memory.runStarted(),
            leased: (principal, threadId) => memory.threadResumed(principal, threadId),
            settled: (principal, threadId) => memory.runSettled(principal, threadId),
          },
          automations ? (end) => automations.runEnded(end) : undefined,
          {
            setupFirstMaxMs: config.agent.setupFirstMaxMs,
            setupFirstMinWaiting: config.agent.setupFirstMinWaiting,
            streamTurnBudgetMs: config.agent.streamTurnBudgetMs,
            tracer: tracer ?? undefined,
          },
        ),
    },
    {
      provide: PromptLevelsCache,
      inject: [APP_CONFIG, GraphChangeNotifier, AlwaysSendService],
      useFactory: (config: AppConfig, notifier: GraphChangeNotifier, alwaysSend: AlwaysSendService) =>
        new PromptLevelsCache({
          graphStateTtlMs: config.rag.cacheTtlMs,
          notifier,
          alwaysSend: {
            listOf: (workspace, graphKey) => alwaysSend.get(workspace, graphKey),
            maxTokens: config.agent.alwaysSendMaxTokens,
            countTokens: approximateTokens,
          },
        }),
    },
    {
      provide: ManageAlwaysSend,
      inject: [AlwaysSendService, GraphDataSourceFactory, PromptLevelsCache, APP_CONFIG],
      useFactory: (
        lists: AlwaysSendService,
        graphs: GraphDataSourceFactory,
        promptLevels: PromptLevelsCache,
        config: AppConfig,
      ) => new ManageAlwaysSend(lists, graphs, promptLevels, config),
    },
    {
      provide: BlockDataExecutor,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new BlockDataExecutor({ locale: config.locale, truncateData: DEFAULT_GRAPH_RAG_OPTIONS.truncateData }),
    },
    {
      provide: ContextAssembler,
      inject: [APP_CONFIG, MemoryContextBuilder],
      useFactory: (config: AppConfig, memory: MemoryContextBuilder) =>
        new ContextAssembler(memory, { maxTokens: config.agent.historyMaxTokens, countTokens: approximateTokens }),
    },
    {
      provide: SmallerContextBuilder,
      inject: [APP_CONFIG, GraphRagRetriever, ContextAssembler],
      useFactory: (config: AppConfig, retriever: GraphRagRetriever, context: ContextAssembler) =>
        new SmallerContextBuilder(retriever, context, {
          locale: config.locale,
          maxNodes: config.rag.maxNodes,
          truncateProcess: DEFAULT_GRAPH_RAG_OPTIONS.truncateProcess,
          truncateData: DEFAULT_GRAPH_RAG_OPTIONS.truncateData,
          historyMaxTokens: config.agent.historyMaxTokens,
        }),
    },
    {
      provide: PendingInterruptSettler,
      inject: [APP_CONFIG, HITL_OBSERVER],
      useFactory: (config: AppConfig, hitl: HitlObserver) => new PendingInterruptSettler(hitl, config.locale),
    },
    {
      provide: AgentRunExecutor,
      inject: [APP_CONFIG, AgentLoop, OperationService, GraphRagRetriever],
      useFactory: (config: AppConfig, loop: AgentLoop, operations: OperationService, retriever: GraphRagRetriever) =>
        new AgentRunExecutor(loop, operations, retriever, config),
    },
    {
      provide: QuestionRun,
      inject: [
        APP_CONFIG,
        GraphDataSourceFactory,
        GraphRagRetriever,
        ThreadService,
        ActionPolicyService,
        TokenTracker,
        LLM_PROVIDER_RESOLVER,
        PromptLevelsCache,
        ContextAssembler,
        SmallerContextBuilder,
        OperationService,
        ThreadRunner,
        AgentRunExecutor,
        BlockDataExecutor,
        HITL_OBSERVER,
        ThreadTurnScheduler,
        OPTIONAL_TRACER,
      ],
      useFactory: (
        config: AppConfig,
        graphs: GraphDataSourceFactory,
        retriever: GraphRagRetriever,
        threads: ThreadService,
        policies: ActionPolicyService,
        tokenTracker: TokenTracker,
        providers: LlmProviderResolver,
        promptLevels: PromptLevelsCache,
        context: ContextAssembler,
        smallerContext: SmallerContextBuilder,
        operations: OperationService,
        runner: ThreadRunner,
        executor: AgentRunExecutor,
        blocks: BlockDataExecutor,
        hitl: HitlObserver,
        turns: ThreadTurnScheduler,
        tracer: GenAiTracer | null,
      ) =>
        new QuestionRun({
          config,
          graphs,
          retriever,
          threads,
          policies,
          tokenTracker,
          providers,
          promptLevels,
          context,
          smallerContext,
          operations,
          runner,
          executor,
          blocks,
          hitl,
          turns,
          tracer: tracer ?? undefined,
        }),
    },
    {
      // Messages sent during a run wait in one line per thread, shared through Redis with REDIS_URL.
      provide: ThreadTurnScheduler,
      inject: [APP_CONFIG, ThreadService, RunControl, { token: REDIS_CONNECTION, optional: true }],
      useFactory: (config: AppConfig, threads: ThreadService, control: RunControl, redis: RedisConnection | null) =>
        new ThreadTurnScheduler(
          threads,
          redis ? new RedisThreadTurnQueue(redis) : new InMemoryThreadTurnQueue(),
          control,
          { maxWaiting: config.agent.enqueueMax },
        ),
    },
    {
      provide: AskQuestion,
      inject: [QuestionRun, APP_CONFIG],
      useFactory: (questions: QuestionRun, config: AppConfig) => new AskQuestion(questions, config),
    },
    {
      provide: RunAutomation,
      inject: [QuestionRun],
      useFactory: (questions: QuestionRun) => new RunAutomation(questions),
    },
    {
      provide: ResumeInterrupt,
      inject: [
        APP_CONFIG,
        GraphDataSourceFactory,
        ThreadService,
        ActionPolicyService,
        TokenTracker,
        LLM_PROVIDER_RESOLVER,
        PromptLevelsCache,
        ContextAssembler,
        SmallerContextBuilder,
        PendingInterruptSettler,
        ThreadRunner,
        AgentRunExecutor,
        HITL_OBSERVER,
        OPTIONAL_TRACER,
        { token: AUTOMATION_RUNS, optional: true },
      ],
      useFactory: (
        config: AppConfig,
        graphs: GraphDataSourceFactory,
        threads: ThreadService,
        policies: ActionPolicyService,
        tokenTracker: TokenTracker,
        providers: LlmProviderResolver,
        promptLevels: PromptLevelsCache,
        context: ContextAssembler,
        smallerContext: SmallerContextBuilder,
        settler: PendingInterruptSettler,
        runner: ThreadRunner,
        executor: AgentRunExecutor,
        hitl: HitlObserver,
        tracer: GenAiTracer | null,
        automations: AutomationRuns | null,
      ) =>
        new ResumeInterrupt({
          config,
          graphs,
          threads,
          policies,
          tokenTracker,
          providers,
          promptLevels,
          context,
          smallerContext,
          settler,
          runner,
          executor,
          hitl,
          tracer: tracer ?? undefined,
          ...(automations ? { automations } : {}),
        }),
    },
    {
      provide: ProposeChange,
      inject: [
        APP_CONFIG,
        GraphDataSourceFactory,
        ThreadService,
        ActionPolicyService,
        TokenTracker,
        ThreadRunner,
        AgentRunExecutor,
      ],
      useFactory: (
        config: AppConfig,
        graphs: GraphDataSourceFactory,
        threads: ThreadService,
        policies: ActionPolicyService,
        tokenTracker: TokenTracker,
        runner: ThreadRunner,
        executor: AgentRunExecutor,
      ) => new ProposeChange({ config, graphs, threads, policies, tokenTracker, runner, executor }),
    },
    {
      provide: McpSessionRegistry,
      inject: [
        APP_CONFIG,
        GraphDataSourceFactory,
        RagContextService,
        ProposeChange,
        TokenTracker,
        RequestRateLimiter,
        ActiveRunRegistry,
        MetricsService,
        { token: REDIS_CONNECTION, optional: true },
      ],
      useFactory: (
        config: AppConfig,
        graphs: GraphDataSourceFactory,
        contexts: RagContextService,
        proposals: ProposeChange,
        tokenTracker: TokenTracker,
        rateLimiter: RequestRateLimiter,
        runs: ActiveRunRegistry,
        metricsService: MetricsService,
        redis: RedisConnection | null,
      ) => {
        let sessions: McpSessionRegistry | null = null;
        const metrics = new McpMetrics(metricsService.registry, () => sessions?.size ?? 0);
        const dispatcher = new McpToolDispatcher({
          config,
          graphs,
          contexts,
          proposals,
          tokenTracker,
          rateLimiter,
          metrics,
        });
        const resources = new GraphResourceReader(graphs);
        // With REDIS_URL the sessions are shared: any instance serves a session opened on another.
        const shared = redis ? new RedisMcpSessionRepository(redis.commands) : null;
        sessions = new McpSessionRegistry(() => createMcpServer({ dispatcher, resources, proposals, runs }), shared);
        return sessions;
      },
    },
    {
      provide: ThreadQueries,
      inject: [ThreadService, OperationService, MemoryService],
      useFactory: (threads: ThreadService, operations: OperationService, memory: MemoryService) =>
        new ThreadQueries(threads, operations, memory),
    },
    {
      provide: RevertChanges,
      inject: [ThreadService, OperationService, GraphRagRetriever, APP_CONFIG],
      useFactory: (
        threads: ThreadService,
        operations: OperationService,
        retriever: GraphRagRetriever,
        config: AppConfig,
      ) => new RevertChanges(threads, operations, retriever, config),
    },
    {
      provide: RUN_EVENT_LOG,
      inject: [APP_CONFIG, { token: REDIS_CONNECTION, optional: true }],
      useFactory: (config: AppConfig, redis: RedisConnection | null): RunEventLog => {
        const limits = { maxEventsPerRun: MAX_EVENTS_PER_RUN, retentionMs: config.rejoin.graceMs };
        const memory = new InMemoryRunEventLog(limits);
        return redis ? new DegradableRunEventLog(redis, new RedisRunEventLog(redis, limits), memory) : memory;
      },
    },
    {
      provide: RunControl,
      inject: [ActiveRunRegistry, { token: REDIS_CONNECTION, optional: true }],
      useFactory: (runs: ActiveRunRegistry, redis: RedisConnection | null) => new RunControl(runs, redis ?? null),
    },
    {
      provide: HITL_OBSERVER,
      inject: [MetricsService],
      useFactory: (metrics: MetricsService) => new HitlMetrics(metrics.registry),
    },
    {
      provide: AGENT_RUN_OBSERVER,
      inject: [MetricsService, APP_CONFIG],
      useFactory: (metrics: MetricsService, config: AppConfig) =>
        new AgentRunMetrics(metrics.registry, config.agent.maxToolRounds),
    },
    {
      provide: SocketMetrics,
      inject: [MetricsService],
      useFactory: (metrics: MetricsService) => new SocketMetrics(metrics.registry),
    },
  ],
  exports: [
    AskQuestion,
    ResumeInterrupt,
    RunAutomation,
    ThreadQueries,
    RevertChanges,
    ActiveRunRegistry,
    ApprovalPendingNotifier,
  ],
})
export class AiModule {
  constructor(metrics: MetricsService, runs: ActiveRunRegistry, runner: ThreadRunner) {
    new ActiveGenerationsMetrics(metrics.registry).track(() => runs.size);
    new RunSchedulingMetrics(metrics.registry).track(() => runner.schedulingState());
  }
}
