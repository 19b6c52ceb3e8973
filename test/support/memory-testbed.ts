import type { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Principal } from '../../src/auth/principal';
import { AppConfig } from '../../src/config/app-config';
import { loadAppConfig } from '../../src/config/load-app-config';
import { openSqliteDatabase } from '../../src/database/sqlite/sqlite-database.opener';
import { EmbeddingProvider } from '../../src/embeddings/embedding-provider';
import { LocalHashEmbeddingProvider } from '../../src/embeddings/local-hash-embedding.provider';
import { nbaWorkflowDemo } from '../../src/graph/demo/nba-workflow.demo';
import { GraphChangeNotifier } from '../../src/graph/graph-change.notifier';
import { GraphDataSourceFactory } from '../../src/graph/graph-data-source.factory';
import { LiveOverlayRegistry } from '../../src/graph/overlay/live-overlay.registry';
import { SqliteGraphStore } from '../../src/graph/sqlite/sqlite-graph.store';
import { SqliteMemoryRepository } from '../../src/memory/sqlite/sqlite-memory.repository';
import { ConversationSummarizer } from '../../src/memory/summaries/conversation-summary';
import { ExtractiveConversationSummarizer } from '../../src/memory/summaries/extractive-conversation.summarizer';
import { ThreadMemoryWriter } from '../../src/memory/thread-memory.writer';
import { configureLogging } from '../../src/observability/logger';
import { TokenTracker, TokenTrackerOptions } from '../../src/providers/token.tracker';
import { generateMessageId } from '../../src/threads/sortable-id.generator';
import { SqliteThreadRepository } from '../../src/threads/sqlite/sqlite-thread.repository';
import { ThreadService } from '../../src/threads/thread.service';
import { ThreadMessage, ThreadRecord } from '../../src/threads/thread.types';
import { toolCall } from './thread-messages';

/** One scripted exchange: the question, the answer, and the read tools called before it. */
export interface ScriptedExchange {
  user: string;
  answer: string;
  tools?: Array<{ name: string; arguments: Record<string, unknown>; result: string }>;
}

export interface MemoryTestbedOptions {
  env?: Record<string, string>;
  summarizer?: ConversationSummarizer;
  embeddings?: EmbeddingProvider | null;
  tracker?: TokenTrackerOptions;
  clock?: () => number;
}

/**
 * The parts of conversation memory on a real SQLite file, as one service process has them: the demo
 * graph in the graph store, threads, memory records, the local embedding and a summarizer (extractive
 * unless given: e.g. the LLM one pointed at a ScriptedLlmServer). Threads are written through
 * ThreadService commits, as the agent writes them.
 */
export class MemoryTestbed {
  readonly principal: Principal = { userId: 'alice', workspace: 'default', role: 'editor' };

  private constructor(
    readonly dataDir: string,
    readonly notifier: GraphChangeNotifier,
    readonly config: AppConfig,
    readonly db: Database,
    readonly graphStore: SqliteGraphStore,
    readonly graphs: GraphDataSourceFactory,
    readonly threads: ThreadService,
    readonly repository: SqliteMemoryRepository,
    readonly embeddings: EmbeddingProvider | null,
    readonly tokenTracker: TokenTracker,
    readonly writer: ThreadMemoryWriter,
  ) {}

  static async create(options: MemoryTestbedOptions = {}): Promise<MemoryTestbed> {
    configureLogging({ level: 'error' });
    const dataDir = mkdtempSync(path.join(tmpdir(), 'memory-'));
    const config = loadAppConfig({
      NODE_ENV: 'test',
      AUTH_MODE: 'none',
      LOG_LEVEL: 'error',
      ...options.env,
      DATA_DIR: dataDir,
    });
    const db = openSqliteDatabase(dataDir);
    const graphStore = new SqliteGraphStore(db);
    await graphStore.importGraph('default', nbaWorkflowDemo);
    const notifier = new GraphChangeNotifier();
    const graphs = new GraphDataSourceFactory(graphStore, new LiveOverlayRegistry(), notifier);
    const threads = new ThreadService(new SqliteThreadRepository(db), config);
    const repository = new SqliteMemoryRepository(db);
    const embeddings = options.embeddings === undefined ? new LocalHashEmbeddingProvider() : options.embeddings;
    const tokenTracker = new TokenTracker(options.tracker);
    const writer = new ThreadMemoryWriter(
      {
        repository,
        threads,
        graphs,
        embeddings,
        summarizer: options.summarizer ?? new ExtractiveConversationSummarizer(config.locale),
        tokenTracker,
      },
      {
        level1EveryChars: config.memory.level1EveryChars,
        level2EveryChars: config.memory.level2EveryChars,
        clock: options.clock,
      },
    );
    return new MemoryTestbed(
      dataDir,
      notifier,
      config,
      db,
      graphStore,
      graphs,
      threads,
      repository,
      embeddings,
      tokenTracker,
      writer,
    );
  }

  /** A new thread of the principal on the demo graph holding these exchanges (each a closed turn). */
  async conversation(exchanges: ScriptedExchange[], principal: Principal = this.principal): Promise<ThreadRecord> {
    const thread = await this.threads.create(principal, nbaWorkflowDemo.graph._key, 'test');
    return this.append(thread, exchanges);
  }

  /** Appends exchanges to a thread, one commit each, as the agent does. */
  async append(thread: ThreadRecord, exchanges: ScriptedExchange[]): Promise<ThreadRecord> {
    let current = thread;
    for (const exchange of exchanges)
      current = await this.threads.commit(current, { append: exchangeMessages(exchange) });
    return current;
  }

  async close(): Promise<void> {
    await this.threads.beforeApplicationShutdown();
    await this.graphStore.close();
    if (this.db.open) this.db.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

let calls = 0;

/** The stored messages of one exchange: the question, the tool calls with their results, the answer. */
export function exchangeMessages(exchange: ScriptedExchange, now = Date.now()): ThreadMessage[] {
  const messages: ThreadMessage[] = [
    { id: generateMessageId(now), role: 'user', content: exchange.user, createdTime: now },
  ];
  if (exchange.tools?.length) {
    const ids = exchange.tools.map(() => `call_${(calls += 1)}`);
    messages.push({
      id: generateMessageId(now),
      role: 'assistant',
      content: null,
      toolCalls: exchange.tools.map((tool, index) => toolCall(ids[index], tool.name, tool.arguments)),
      createdTime: now,
    });
    exchange.tools.forEach((tool, index) =>
      messages.push({
        id: generateMessageId(now),
        role: 'tool',
        toolCallId: ids[index],
        toolName: tool.name,
        content: tool.result,
        success: true,
        durationMs: 3,
        createdTime: now,
      }),
    );
  }
  messages.push({ id: generateMessageId(now), role: 'assistant', content: exchange.answer, createdTime: now });
  return messages;
}
