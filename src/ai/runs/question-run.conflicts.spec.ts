import { AgentHarness, RecordingSink } from '../../../test/support/agent.harness';
import { ScriptedLlmServer } from '../../../test/support/scripted-llm-server';
import { Principal } from '../../auth/principal';
import { LogEntry } from '../../observability/log-entry';
import { configureLogging, resetLogSink, setLogSink } from '../../observability/logger';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { SqliteThreadRepository } from '../../threads/sqlite/sqlite-thread.repository';
import { ThreadRevisionConflictError } from '../../threads/thread-revision-conflict.error';
import { ThreadService } from '../../threads/thread.service';
import { ThreadRepository } from '../../threads/thread.repository';
import { QuestionRun } from './question.run';
import { RunEnd } from './agent-run.observer';

const GRAPH = 'nba-workflow';
const editor: Principal = { userId: 'alice', workspace: 'default', role: 'editor' };
const signal = () => new AbortController().signal;

/** A repository whose round commits (those carrying an assistant message) conflict `times` times, as if another writer kept winning. */
function conflicting(times: number, options: { leaseTaken?: boolean } = {}) {
  const attempts: number[] = [];
  const wrap = (repository: ThreadRepository): ThreadRepository =>
    Object.assign(Object.create(repository) as ThreadRepository, {
      commit: async (...[threadId, commit, end]: Parameters<ThreadRepository['commit']>) => {
        if (commit.append.some((message) => message.role === 'assistant') && attempts.length < times) {
          attempts.push(commit.expectedRevision);
          throw new ThreadRevisionConflictError(threadId, commit.expectedRevision, commit.expectedRevision + 1);
        }
        return repository.commit(threadId, commit, end);
      },
      renewLease: async (...args: Parameters<ThreadRepository['renewLease']>) =>
        options.leaseTaken ? false : repository.renewLease(...args),
    });
  return { wrap, attempts };
}

/**
 * Revision conflicts on a round commit: re-read and replayed up to 3
 * times with backoff, then thread_busy; a lease held elsewhere is thread_busy at once.
 */
describe(`${QuestionRun.name} (revision conflicts on a round commit)`, () => {
  let server: ScriptedLlmServer;
  let logs: LogEntry[];
  let ends: RunEnd[];
  let conflicts: string[];

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.reset();
    logs = [];
    ends = [];
    conflicts = [];
  });
  afterEach(() => resetLogSink());

  const observer = {
    runEnded: (end: RunEnd) => ends.push(end),
    conflict: (outcome: string) => conflicts.push(outcome),
  };
  const listen = () => {
    configureLogging({ level: 'info' });
    setLogSink((entry) => logs.push(entry));
  };

  it('re-reads and replays a round when another instance wrote the thread meanwhile, and the run answers', async () => {
    const harness = await AgentHarness.create({ env: server.providerEnv('openai'), runs: observer });
    // Another service instance on the same file: its own connection and ThreadService.
    const otherDb = openSqliteDatabase(harness.dataDir);
    const elsewhere = new ThreadService(new SqliteThreadRepository(otherDb), harness.config);
    try {
      server.enqueue({ text: 'Hi.' });
      const first = await harness.agent.chat(
        editor,
        { graphKey: GRAPH, message: 'First question' },
        new RecordingSink(),
        signal(),
      );
      server.enqueue(
        {
          text: 'Reading fetch-api.',
          toolCalls: [{ id: 'c1', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }],
          delayMs: 60,
          chunkSize: 4,
        },
        { text: 'It calls the stats API.' },
      );
      listen();
      const running = harness.agent.chat(
        editor,
        { graphKey: GRAPH, message: 'What does fetch-api do?', threadId: first.threadId },
        new RecordingSink(),
        signal(),
      );
      // While round 1 streams, another instance on the same file renames the thread (a commit: the revision moves on).
      await server.waitForRequests(2);
      await elsewhere.commit(await elsewhere.load(editor, first.threadId), { append: [], title: 'Renamed elsewhere' });
      const result = await running;

      expect(result.message).toBe('Reading fetch-api.\n\nIt calls the stats API.');
      const stored = await harness.threadService.load(editor, first.threadId);
      expect(stored.title).toBe('Renamed elsewhere');
      expect(stored.messages.filter((message) => message.role !== 'system').map((message) => message.role)).toEqual([
        'user',
        'event',
        'assistant',
        'user',
        'event',
        'assistant',
        'tool',
        'assistant',
      ]);
      expect(logs).toContainEqual(
        expect.objectContaining({
          event: 'thread_commit_replayed_after_conflict',
          threadId: first.threadId,
          replays: 1,
          applied: true,
        }),
      );
      expect(conflicts).toEqual(['replayed']);
    } finally {
      await elsewhere.beforeApplicationShutdown();
      otherDb.close();
      await harness.close();
    }
  });

  it('gives up after 3 replays with backoff: thread_busy, and the thread keeps its question, valid', async () => {
    const conflict = conflicting(4);
    const harness = await AgentHarness.create({
      env: server.providerEnv('openai'),
      wrapRepository: conflict.wrap,
      runs: observer,
    });
    try {
      server.enqueue({ text: 'An answer that cannot be stored.' });
      listen();
      const sink = new RecordingSink();
      const started = Date.now();
      const failure = await harness.agent
        .chat(editor, { graphKey: GRAPH, message: 'Hello?' }, sink, signal())
        .catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: 'thread_busy', retryable: true });
      // One first attempt and 3 replays, waiting 12.5-25, 25-50 and 50-100 ms between them.
      expect(conflict.attempts).toHaveLength(4);
      expect(Date.now() - started).toBeGreaterThanOrEqual(85);
      const threadId = (sink.events[0] as { threadId: string }).threadId;
      const stored = await harness.threadService.load(editor, threadId);
      expect(stored.messages.map((message) => message.kind ?? message.role)).toEqual([
        'system_prompt',
        'user',
        'rag_context',
        'event',
      ]);
      expect(logs).toContainEqual(
        expect.objectContaining({ event: 'thread_commit_conflict', outcome: 'failed', replays: 3 }),
      );
      expect(conflicts).toEqual(['failed']);
      expect(ends).toEqual([expect.objectContaining({ kind: 'chat', stopReason: 'error' })]);

      // The next message continues the thread.
      server.enqueue({ text: 'Now it is stored.' });
      const next = await harness.agent.chat(
        editor,
        { graphKey: GRAPH, message: 'Again?', threadId },
        new RecordingSink(),
        signal(),
      );
      expect(next.message).toBe('Now it is stored.');
    } finally {
      await harness.close();
    }
  });

  it('fails at once with thread_busy when the lease is held elsewhere: no replay over another run', async () => {
    const conflict = conflicting(10, { leaseTaken: true });
    const harness = await AgentHarness.create({
      env: server.providerEnv('openai'),
      wrapRepository: conflict.wrap,
      runs: observer,
    });
    try {
      server.enqueue({ text: 'Too late.' });
      listen();
      await expect(
        harness.agent.chat(editor, { graphKey: GRAPH, message: 'Hello?' }, new RecordingSink(), signal()),
      ).rejects.toMatchObject({
        code: 'thread_busy',
        message: 'Another request holds this thread',
      });
      expect(conflict.attempts).toHaveLength(1);
      expect(conflicts).toEqual(['lease_lost']);
      expect(logs).toContainEqual(
        expect.objectContaining({ event: 'thread_commit_conflict', outcome: 'lease_lost', replays: 0 }),
      );
    } finally {
      await harness.close();
    }
  });
});
