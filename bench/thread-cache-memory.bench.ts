/**
 * Memory of idle threads in ThreadService's cache (DESIGN.md budget: < 50 KB per idle cached thread).
 *
 *   node --expose-gc --require ./test/support/swc-register.js bench/thread-cache-memory.bench.ts [--threads 200] [--exchanges 10]
 *
 * Builds THREADS threads of EXCHANGES exchanges each on a temp SQLite file, the way a run commits
 * them (per question: RAG context + question + assistant tool calls + their results, then the answer),
 * then loads them all into a fresh ThreadService (so every string comes from JSON.parse, as in
 * production) and reports the retained heap per cached thread. Sizes are those measured on the demo
 * graph scaled to a 20-node context (system prompt ~4.3 KB, TOON context ~2.2-2.7 KB for 9 nodes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadAppConfig } from '../src/config/load-app-config';
import { openSqliteDatabase } from '../src/database/sqlite/sqlite-database.opener';
import { configureLogging } from '../src/observability/logger';
import { generateMessageId } from '../src/threads/sortable-id.generator';
import { SqliteThreadRepository } from '../src/threads/sqlite/sqlite-thread.repository';
import { ThreadRecordCache } from '../src/threads/thread-record.cache';
import { ThreadService } from '../src/threads/thread.service';
import type { ThreadMessage, ThreadRecord } from '../src/threads/thread.types';
import { numberArgument } from './bench-arguments';

export interface ThreadCacheMemoryResult {
  threads: number;
  exchangesPerThread: number;
  storedMessagesPerThread: number;
  storedJsonKB: number;
  cachedMessagesPerThread: number;
  cachedJsonKB: number;
  /** Retained heap + external per thread while in use (objects), KB. */
  hotHeapKBPerThread: number;
  /** The same once idle (deflated by the cache), KB: the budgeted figure. */
  idleHeapKBPerThread: number;
  budgetKB: number;
}
const SIZES = {
  systemPrompt: 4_300,
  ragContext: 5_000,
  question: 150,
  toolArguments: 60,
  toolResult: 1_200, // two parallel read tools per exchange (search_nodes, read_node_detail)
  answer: 800,
};

const VOCABULARY = (
  'the a node nodes graph edge edges handle input output data process function returns filter active players stats ' +
  'sort html display error handler root entry form fetch api request response json value type string number array ' +
  'object sheet main when then because this that with from into each list key label success failed result results ' +
  'team season points average rebounds assists game games player name id score total count map reduce push await ' +
  'const let return if else for of in new true false null undefined connected connects source target position'
).split(' ');

let seed = 1;
/** Distinct pseudo-random prose over a small vocabulary, so no two threads share a string. */
function text(length: number): string {
  const words: string[] = [];
  let size = 0;
  while (size < length) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    const word = VOCABULARY[seed % VOCABULARY.length];
    words.push(word);
    size += word.length + 1;
  }
  return words.join(' ').slice(0, length);
}

const message = (
  role: ThreadMessage['role'],
  content: string | null,
  extra: Partial<ThreadMessage> = {},
): ThreadMessage => ({
  id: generateMessageId(),
  role,
  content,
  createdTime: Date.now(),
  ...extra,
});

function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run node with --expose-gc');
  for (let pass = 0; pass < 3; pass += 1) gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external; // deflated messages are Buffers: outside the V8 heap
}

export async function runThreadCacheMemoryBench(
  options: { threads?: number; exchanges?: number } = {},
): Promise<ThreadCacheMemoryResult> {
  configureLogging({ level: 'error' });
  const THREADS = options.threads ?? 200;
  const EXCHANGES = options.exchanges ?? 10;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'thread-cache-memory-'));
  const config = loadAppConfig({
    NODE_ENV: 'test',
    AUTH_MODE: 'none',
    DATA_DIR: dataDir,
    THREAD_CACHE_SIZE: String(THREADS),
  });
  const db = openSqliteDatabase(dataDir);
  const principal = { userId: 'alice', workspace: 'acme', role: 'editor' as const };
  try {
    const repository = new SqliteThreadRepository(db);
    const writer = new ThreadService(repository, config);
    const threadIds: string[] = [];
    let storedChars = 0;
    for (let index = 0; index < THREADS; index += 1) {
      let thread = await writer.create(principal, 'nba-workflow', text(40));
      for (let exchange = 0; exchange < EXCHANGES; exchange += 1) {
        const calls = ['search_nodes', 'read_node_detail'].map((name, call) => ({
          id: `call_${exchange}_${call}_${text(8)}`,
          type: 'function' as const,
          function: { name, arguments: JSON.stringify({ query: text(SIZES.toolArguments - 14) }) },
        }));
        const round = [
          ...(exchange === 0 ? [message('system', text(SIZES.systemPrompt), { kind: 'system_prompt' })] : []),
          message('system', text(SIZES.ragContext), { kind: 'rag_context' }),
          message('user', text(SIZES.question)),
          message('assistant', null, { toolCalls: calls }),
          // A tool result as the agent stores it: a JSON object, named after its call, with its outcome and time.
          ...calls.map((call) =>
            message('tool', JSON.stringify({ result: text(SIZES.toolResult - 13) }), {
              toolCallId: call.id,
              toolName: call.function.name,
              success: true,
              durationMs: 3,
            }),
          ),
        ];
        thread = await writer.commit(thread, { append: round });
        thread = await writer.commit(thread, { append: [message('assistant', text(SIZES.answer))] });
      }
      storedChars += JSON.stringify((await repository.get(thread.threadId))?.messages).length;
      threadIds.push(thread.threadId);
    }

    // Hot: records just loaded by a ThreadService (as during a run), held only by its cache.
    const baseline = heapUsed();
    let reader: ThreadService | null = new ThreadService(new SqliteThreadRepository(db), config);
    const records: ThreadRecord[] = [];
    for (const threadId of threadIds) records.push(await reader.load(principal, threadId));
    const hotBytes = heapUsed() - baseline;

    // Idle: the same records in a ThreadRecordCache after its idle packing (ThreadService packs after 30 s).
    let now = 0;
    const idleCache = new ThreadRecordCache({ maxEntries: THREADS, packAfterIdleMs: 1, clock: () => now });
    for (const record of records) idleCache.set(record);
    await reader.beforeApplicationShutdown(); // stops its timer, the last reference to its cache
    reader = null;
    records.length = 0;
    now = 10;
    await idleCache.packIdle();
    const idleBytes = heapUsed() - baseline;
    if (idleCache.size !== THREADS) throw new Error('the idle cache lost entries');

    const stored = await new SqliteThreadRepository(db).get(threadIds[0]);
    const inspector = new ThreadService(new SqliteThreadRepository(db), config);
    const cached = await inspector.load(principal, threadIds[0]);
    await inspector.beforeApplicationShutdown();
    await writer.beforeApplicationShutdown();
    const kb = (bytes: number) => +(bytes / 1024).toFixed(1);
    return {
      threads: THREADS,
      exchangesPerThread: EXCHANGES,
      storedMessagesPerThread: stored?.messages.length ?? 0,
      storedJsonKB: kb(storedChars / THREADS),
      cachedMessagesPerThread: cached.messages.length,
      cachedJsonKB: kb(JSON.stringify(cached.messages).length),
      hotHeapKBPerThread: kb(hotBytes / THREADS),
      idleHeapKBPerThread: kb(idleBytes / THREADS),
      budgetKB: 50,
    };
  } finally {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runThreadCacheMemoryBench({ threads: numberArgument('threads'), exchanges: numberArgument('exchanges') })
    .then((result) => console.log(JSON.stringify(result, null, 2)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
