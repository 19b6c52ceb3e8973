import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { GraphModule } from '../graph/graph.module';
import { MemoryModule } from '../memory/memory.module';
import { MetricsService } from '../observability/metrics.service';
import { ObservabilityModule } from '../observability/observability.module';
import { PolicyModule } from '../policy/policy.module';
import { ProviderConfigsModule } from '../providers/configs/provider-configs.module';
import { ProvidersModule } from '../providers/providers.module';
import { RagModule } from '../rag/rag.module';
import { RedisConnection } from '../redis/redis-connection';
import { REDIS_CONNECTION } from '../redis/redis-connection.token';
import { ThreadsModule } from '../threads/threads.module';
import { ChatService } from './chat.service';
import { HitlMetrics } from './hitl.metrics';
import { HITL_OBSERVER } from './hitl-observer.token';
import { AiController } from './http/ai.controller';
import { AgentRunMetrics } from './runs/agent-run.metrics';
import { AGENT_RUN_OBSERVER } from './runs/agent-run-observer.token';
import { ActiveGenerationsMetrics } from './runs/active-generations.metrics';
import { RunSchedulingMetrics } from './runs/run-scheduling.metrics';
import { ActiveRunRegistry } from './runs/active-run.registry';
import { DegradableRunEventLog } from './runs/degradable-run-event.log';
import { InMemoryRunEventLog } from './runs/in-memory-run-event.log';
import { RedisRunEventLog } from './runs/redis-run-event.log';
import { MAX_EVENTS_PER_RUN, RunEventLog } from './runs/run-event.log';
import { RUN_EVENT_LOG } from './runs/run-event-log.token';
import { AiGateway } from './socket/ai.gateway';
import { ApprovalPendingNotifier } from './socket/approval-pending.notifier';
import { RunControl } from './socket/run-control';
import { SocketMetrics } from './socket/socket.metrics';

/**
 * The agent: ChatService (RAG context, tool loop with human-in-the-loop, thread commits) on top of
 * graph data, retrieval, the LLM provider of each run (the workspace's configuration, else the
 * environment's: ProviderConfigsModule), threads and conversation memory. Exports ChatService for the transports
 * (REST controller, Socket.IO gateway), which authenticate the caller and own per-request state, and
 * for the automations (src/automations: runs without a socket), with the ActiveRunRegistry their runs
 * join and the ApprovalPendingNotifier that tells editors about them.
 * Metrics, registered on the application's registry: interrupts (HitlMetrics, under HITL_OBSERVER),
 * runs by stop reason, answer efficiency and commit conflicts (AgentRunMetrics, under AGENT_RUN_OBSERVER),
 * socket requests (SocketMetrics, in the gateway), and the running generations read from the
 * ActiveRunRegistry at each scrape. The request event log that `ai:rejoin` replays (RUN_EVENT_LOG) and
 * RunControl are per instance without REDIS_URL, shared through Redis with it (docs/protocol.md §8.7).
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
    AuthModule,
    ObservabilityModule,
  ],
  controllers: [AiController],
  providers: [
    ChatService,
    ActiveRunRegistry,
    AiGateway,
    ApprovalPendingNotifier,
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
  exports: [ChatService, ActiveRunRegistry, ApprovalPendingNotifier],
})
export class AiModule {
  constructor(metrics: MetricsService, runs: ActiveRunRegistry, chat: ChatService) {
    new ActiveGenerationsMetrics(metrics.registry).track(() => runs.size);
    new RunSchedulingMetrics(metrics.registry).track(() => chat.schedulingState());
  }
}
