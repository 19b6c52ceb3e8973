import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { ANONYMOUS_PRINCIPAL } from '../src/auth/anonymous-principal';
import { loadAppConfig } from '../src/config/load-app-config';
import { openSqliteDatabase } from '../src/database/sqlite/sqlite-database.opener';
import { SqliteThreadRepository } from '../src/threads/sqlite/sqlite-thread.repository';
import { ThreadService } from '../src/threads/thread.service';
import { AiSocketClient } from '../test/support/ai-socket.client';
import { PrometheusSamples } from '../test/support/prometheus-samples';
import { ScriptedLlmServer } from '../test/support/scripted-llm-server';
import { TestAppProcess } from '../test/support/test-app.process';
import { threadProblems } from './thread-validity';

const GRAPH = 'nba-workflow';

export interface CommitConflictOptions {
  /** Runs, each meeting one revision conflict on its round commit. */
  runs: number;
}

export interface CommitConflictResult {
  runs: number;
  /** Runs that ended with their answer (ai:complete). */
  answered: number;
  /** Round commits re-read and replayed after the conflict (graph_ai_thread_commit_conflicts_total{outcome="replayed"}). */
  replayed: number;
  /** Conflicts still there after the replays, and lease losses: runs failed with thread_busy. */
  failed: number;
  /** Threads that failed threadProblems() afterwards, or lost the other writer's change. */
  invalidThreads: number;
  problems: string[];
}

/**
 * Revision conflicts on round commits: the service runs in a child process; while each run streams
 * its read-tool round, another writer on the same SQLite file (a ThreadService of this process, as a
 * second instance would) renames the thread, so the run's round commit meets a revision it did not
 * read. Bars: every run answers (the round re-read and replayed), the replays are counted on
 * /metrics, no thread is invalid and the rename is kept.
 */
export async function runCommitConflictScenario(options: CommitConflictOptions): Promise<CommitConflictResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'faults-conflicts-'));
  const server = await ScriptedLlmServer.start();
  const env = {
    ...server.providerEnv('openai'),
    DATA_DIR: dataDir,
    EMBEDDING_PROVIDER: 'local',
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'error',
  };
  const service = await TestAppProcess.start(env, { timeoutMs: 60_000 });
  const db = openSqliteDatabase(dataDir);
  const elsewhere = new ThreadService(new SqliteThreadRepository(db), loadAppConfig({ NODE_ENV: 'test', ...env }));
  const client = await AiSocketClient.connect(service.url);
  const result: CommitConflictResult = {
    runs: options.runs,
    answered: 0,
    replayed: 0,
    failed: 0,
    invalidThreads: 0,
    problems: [],
  };
  const conflicts = async (outcome: string) =>
    new PrometheusSamples((await request(service.url).get('/metrics')).text).sum(
      'graph_ai_thread_commit_conflicts_total',
      { outcome },
    );
  try {
    const before = {
      replayed: await conflicts('replayed'),
      failed: (await conflicts('failed')) + (await conflicts('lease_lost')),
    };
    for (let run = 0; run < options.runs; run += 1) {
      server.reset();
      server.enqueue(
        {
          text: 'Let me read fetch-api first.',
          chunkSize: 3,
          delayMs: 10,
          toolCalls: [{ name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }],
        },
        { text: 'It calls the NBA stats API.' },
      );
      const message = `Question ${run}: what does fetch-api do?`;
      client.socket.emit('ai:chat', { _id: run + 1, graphKey: GRAPH, message });
      // While the round streams, the other writer moves the thread on.
      await client.firstToken(run + 1, 30_000);
      const threadId = (client.eventsOf(run + 1)[0].payload as { threadId: string }).threadId;
      const title = `Renamed elsewhere ${run}`;
      await elsewhere.commit(await elsewhere.load(ANONYMOUS_PRINCIPAL, threadId), { append: [], title });
      const done = await client.terminalOf(run + 1, 30_000);
      if (done.complete) result.answered += 1;
      else result.problems.push(`run ${run}: ${JSON.stringify(done.error)}`);

      const view = (await request(service.url).get(`/api/ai/thread/${threadId}`)).body;
      const problems = threadProblems(view, [message]);
      if (view.title !== title) problems.push(`the other writer's title is gone (${JSON.stringify(view.title)})`);
      if (problems.length > 0) {
        result.invalidThreads += 1;
        result.problems.push(`run ${run}: thread ${threadId}: ${problems.join('; ')}`);
      }
    }
    result.replayed = (await conflicts('replayed')) - before.replayed;
    result.failed = (await conflicts('failed')) + (await conflicts('lease_lost')) - before.failed;
    return result;
  } finally {
    client.close();
    await elsewhere.beforeApplicationShutdown();
    db.close();
    await service.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
