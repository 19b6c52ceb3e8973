import type { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CheckedAction } from '../../src/ai/actions/action.applier';
import { AgentEventSink } from '../../src/ai/agent/agent-event.sink';
import { AgentResult } from '../../src/ai/agent/agent-result';
import { ChatService } from '../../src/ai/chat.service';
import { HitlObserver } from '../../src/ai/hitl.observer';
import { AgentRunObserver } from '../../src/ai/runs/agent-run.observer';
import { AppConfig } from '../../src/config/app-config';
import { loadAppConfig } from '../../src/config/load-app-config';
import { ProviderRegistry } from '../../src/config/provider-registry';
import { ThreadEvent } from '../../src/conversation/thread-event';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { nbaWorkflowDemo } from '../../src/graph/demo/nba-workflow.demo';
import { GraphDataSourceFactory } from '../../src/graph/graph-data-source.factory';
import { MutableGraphDataSource } from '../../src/graph/mutable-graph-data-source';
import { SqliteGraphStore } from '../../src/graph/sqlite/sqlite-graph.store';
import { configureLogging } from '../../src/observability/logger';
import { ActionPolicyService } from '../../src/policy/action-policy.service';
import { SqliteActionPolicyRepository } from '../../src/policy/sqlite/sqlite-action-policy.repository';
import { LlmErrorClassifier } from '../../src/providers/llm-error.classifier';
import { LlmProvider } from '../../src/providers/llm-provider';
import { createLlmProvider } from '../../src/providers/llm-provider.factory';
import { selectLlmProvider } from '../../src/providers/llm-provider.selector';
import { TokenTracker } from '../../src/providers/token.tracker';
import { GraphRagRetriever } from '../../src/rag/graph-rag.retriever';
import { TokenCounter } from '../../src/rag/token-counter';
import { SqliteThreadRepository } from '../../src/threads/sqlite/sqlite-thread.repository';
import { ThreadRepository } from '../../src/threads/thread.repository';
import { ThreadService } from '../../src/threads/thread.service';

export interface ChatServiceHarnessOptions {
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
}

/**
 * A ChatService assembled by hand from the real parts, as one service process would have them: a
 * SQLite file (graph store + thread repository, own connection), the retriever, the LLM provider
 * chosen from the environment by the real selector (point it at a ScriptedLlmServer), the token
 * tracker with the registry's pricing. Several harnesses on one data directory play several
 * instances of the service.
 */
export class ChatServiceHarness {
  private constructor(
    readonly config: AppConfig,
    readonly service: ChatService,
    readonly db: Database,
    readonly graphStore: SqliteGraphStore,
    readonly threadService: ThreadService,
    readonly retriever: GraphRagRetriever,
    readonly provider: LlmProvider,
    readonly tokenTracker: TokenTracker,
    private readonly ownsDataDir: boolean,
  ) {}

  static async create(options: ChatServiceHarnessOptions = {}): Promise<ChatServiceHarness> {
    configureLogging({ level: 'error' });
    const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'chat-service-'));
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
    const service = new ChatService(
      config,
      new GraphDataSourceFactory(graphStore),
      retriever,
      provider,
      tokenTracker,
      new LlmErrorClassifier(config.locale),
      threadService,
      new TokenCounter(),
      new ActionPolicyService(new SqliteActionPolicyRepository(db)),
      options.hitl,
      options.runs,
    );
    return new ChatServiceHarness(
      config,
      service,
      db,
      graphStore,
      threadService,
      retriever,
      provider,
      tokenTracker,
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
    | { type: 'apply'; action: CheckedAction }
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

  apply(action: CheckedAction): void {
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
