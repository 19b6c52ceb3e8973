import { appErrorOf } from '../support/app-error-of';
import { randomUUID } from 'node:crypto';
import { AppError } from '../../src/errors/app-error';
import { generateThreadId } from '../../src/threads/sortable-id.generator';
import { NewThread, ThreadRepository } from '../../src/threads/thread.repository';
import { ThreadRevisionConflictError } from '../../src/threads/thread-revision-conflict.error';
import { PendingInterrupt, ThreadMessage, UsageTotals } from '../../src/threads/thread.types';
import {
  assistantMessage,
  eventMessage,
  ragContext,
  systemPrompt,
  toolCall,
  toolResult,
  userMessage,
} from '../support/thread-messages';

export interface ThreadRepositoryFixture {
  repository: ThreadRepository;
  /** Releases what create() opened (connections, temp files). */
  close(): Promise<void>;
}

const HOUR = 3_600_000;

/**
 * The behaviour every ThreadRepository adapter must have (SQLite now, ArangoDB later). Store-agnostic:
 * each test makes its own workspace, so adapters need no cleaning between tests.
 */
export function describeThreadRepositoryContract(name: string, create: () => Promise<ThreadRepositoryFixture>): void {
  describe(`ThreadRepository contract: ${name}`, () => {
    let fixture: ThreadRepositoryFixture;
    let repository: ThreadRepository;
    let workspace: string;

    beforeEach(async () => {
      fixture = await create();
      repository = fixture.repository;
      workspace = `ws-${randomUUID()}`;
    });

    afterEach(async () => {
      await fixture.close();
    });

    function newThread(overrides: Partial<NewThread> = {}): NewThread {
      return {
        threadId: generateThreadId(),
        workspace,
        userId: 'alice',
        graphKey: 'nba-workflow',
        title: 'What does fetch-api do?',
        createdTime: 1_700_000_000_000,
        ...overrides,
      };
    }

    const pending = (toolCallId: string): PendingInterrupt => ({
      interrupt: {
        kind: 'question',
        questionKind: 'choice',
        toolCallId,
        question: 'Which sheet?',
        options: ['main', 'data-processing'],
      },
      toolName: 'propose_create_node',
      remainingToolCalls: [toolCall('remaining-1', 'search_nodes', { query: 'html' })],
      createdTime: 1_700_000_000_500,
    });

    const usage = (tokens: number, costUsd = 0.001): UsageTotals => ({
      promptTokens: tokens,
      completionTokens: tokens * 2,
      cachedTokens: Math.floor(tokens / 2),
      totalTokens: tokens * 3,
      costUsd,
      llmCalls: 1,
    });

    describe('threads', () => {
      it('creates a thread at revision 0 and reads it back', async () => {
        const thread = newThread();
        const created = await repository.create(thread);
        expect(created).toEqual({
          ...thread,
          type: 'chat',
          messages: [],
          pendingInterrupt: null,
          revision: 0,
          usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0, totalTokens: 0, costUsd: 0, llmCalls: 0 },
          lastUpdatedTime: thread.createdTime,
        });
        expect(await repository.get(thread.threadId)).toEqual(created);
        expect(await repository.getHead(thread.threadId)).toEqual({ revision: 0, usage: created.usage });
      });

      it('creates a thread for a run with its lease held and its first round committed', async () => {
        const thread = newThread();
        const now = thread.createdTime + 5;
        const append = [systemPrompt('You are the assistant.'), userMessage('What does fetch-api do?')].map(
          (message) => ({ ...message, threadId: thread.threadId }),
        );
        const created = await repository.create(thread, {
          lease: { holder: 'run-a', ttlMs: 60_000, now },
          firstRound: { operationId: 'op-input', expectedRevision: 0, append },
        });

        expect(created).toMatchObject({
          ...thread,
          type: 'chat',
          messages: append,
          pendingInterrupt: null,
          revision: 1,
        });
        expect(await repository.get(thread.threadId)).toMatchObject({
          threadId: thread.threadId,
          messages: append,
          revision: 1,
          lastUpdatedTime: created.lastUpdatedTime,
        });
        expect(
          (await repository.list(workspace, 'alice', 'nba-workflow')).find(
            (summary) => summary.threadId === thread.threadId,
          ),
        ).toMatchObject({ messageCount: 1 });
        // The lease is run-a's: another holder is refused until it expires, run-a renews it.
        expect(await repository.acquireLease(thread.threadId, 'run-b', 60_000, now + 1)).toBe(false);
        expect(await repository.renewLease(thread.threadId, 'run-a', 60_000, now + 2)).toBe(true);
        // The first round is applied once: its operation id replays, the next commit follows revision 1.
        expect(
          await repository.commit(thread.threadId, { operationId: 'op-input', expectedRevision: 0, append }),
        ).toMatchObject({ applied: false, revision: 1 });
        await expect(
          repository.commit(thread.threadId, {
            operationId: randomUUID(),
            expectedRevision: 0,
            append: [userMessage('again')],
          }),
        ).rejects.toBeInstanceOf(ThreadRevisionConflictError);
        expect(
          await repository.commit(thread.threadId, {
            operationId: randomUUID(),
            expectedRevision: 1,
            append: [assistantMessage('It fetches.')],
          }),
        ).toMatchObject({ applied: true, revision: 2 });
        await repository.releaseLease(thread.threadId, 'run-a');
        expect(await repository.acquireLease(thread.threadId, 'run-b', 60_000, now + 3)).toBe(true);
      });

      it('writes a new conversation all at once: a refused creation leaves no round, no lease and the existing thread as it was', async () => {
        const thread = newThread();
        await repository.create(thread);
        const now = thread.createdTime + 5;
        const refused = await appErrorOf(
          repository.create(thread, {
            lease: { holder: 'run-a', ttlMs: 60_000, now },
            firstRound: {
              operationId: 'op-dup',
              expectedRevision: 0,
              append: [{ ...userMessage('Hello?'), threadId: thread.threadId }],
              title: 'Hello?',
            },
          }),
        );
        expect(refused.code).toBe('conflict');
        expect(await repository.get(thread.threadId)).toMatchObject({ revision: 0, messages: [], title: thread.title });
        // No lease was left behind either.
        expect(await repository.acquireLease(thread.threadId, 'run-b', 60_000, now + 1)).toBe(true);
      });

      it('answers null for an unknown thread', async () => {
        expect(await repository.get(generateThreadId())).toBeNull();
        expect(await repository.getHead(generateThreadId())).toBeNull();
      });

      it('lists the threads of one owner and graph, newest first, with message counts and the interrupt flag', async () => {
        const older = newThread({ title: 'older' });
        const newer = newThread({ title: 'newer' });
        await repository.create(older);
        await repository.create(newer);
        await repository.create(newThread({ userId: 'bob' }));
        await repository.create(newThread({ graphKey: 'other-graph' }));
        await repository.create(newThread({ workspace: `${workspace}-other` }));

        await repository.commit(newer.threadId, {
          operationId: randomUUID(),
          expectedRevision: 0,
          append: [
            systemPrompt(),
            ragContext('ctx'),
            userMessage('Q'),
            eventMessage('Loaded 1 node', 'DATA_ADDED'),
            assistantMessage('A'),
          ],
        });
        await new Promise((resolve) => setTimeout(resolve, 5));
        await repository.commit(older.threadId, {
          operationId: randomUUID(),
          expectedRevision: 0,
          append: [userMessage('Q'), assistantMessage(null, [toolCall('w1', 'propose_create_node')])],
          pendingInterrupt: pending('w1'),
        });

        const summaries = await repository.list(workspace, 'alice', 'nba-workflow');
        expect(summaries.map((summary) => summary.title)).toEqual(['older', 'newer']);
        const [olderSummary, newerSummary] = summaries;
        expect(olderSummary).toEqual({
          threadId: older.threadId,
          graphKey: 'nba-workflow',
          title: 'older',
          type: 'chat',
          createdTime: older.createdTime,
          lastUpdatedTime: expect.any(Number),
          messageCount: 2,
          pendingInterrupt: true,
        });
        expect(olderSummary.lastUpdatedTime).toBeGreaterThan(newerSummary.lastUpdatedTime);
        // system prompt and RAG context are not counted (clients never see them), nor events (system notes)
        expect(newerSummary).toMatchObject({ threadId: newer.threadId, messageCount: 2, pendingInterrupt: false });
        expect(await repository.list(workspace, 'carol', 'nba-workflow')).toEqual([]);
      });

      it('keeps the type of a thread: a chat by default, an automation run with its automation', async () => {
        const chat = newThread();
        const run = newThread({ type: 'automation', automationId: 'aut_1', title: 'Weekly report' });
        expect(await repository.create(chat)).toMatchObject({ type: 'chat' });
        expect(await repository.create(run)).toMatchObject({ type: 'automation', automationId: 'aut_1' });
        expect(await repository.get(chat.threadId)).not.toHaveProperty('automationId');
        expect(await repository.get(run.threadId)).toMatchObject({ type: 'automation', automationId: 'aut_1' });
        const summaries = await repository.list(workspace, 'alice', 'nba-workflow');
        expect(summaries.find((summary) => summary.threadId === run.threadId)).toMatchObject({
          type: 'automation',
          automationId: 'aut_1',
        });
        expect(summaries.find((summary) => summary.threadId === chat.threadId)).toMatchObject({ type: 'chat' });
      });

      it('lists the approval queue: own chats and, when asked, every automation run of the workspace, newest interrupt first', async () => {
        const waiting = async (thread: NewThread, toolCallId: string, createdTime: number) => {
          await repository.create(thread);
          await repository.commit(thread.threadId, {
            operationId: randomUUID(),
            expectedRevision: 0,
            append: [userMessage('Q'), assistantMessage(null, [toolCall(toolCallId, 'propose_create_node')])],
            pendingInterrupt: { ...pending(toolCallId), createdTime },
          });
          return thread.threadId;
        };
        const aliceChat = await waiting(newThread(), 'a1', 1_000);
        const bobRun = await waiting(
          newThread({ userId: 'bob', type: 'automation', automationId: 'aut_b' }),
          'b1',
          3_000,
        );
        const aliceRun = await waiting(newThread({ type: 'automation', automationId: 'aut_a' }), 'a2', 2_000);
        await waiting(newThread({ userId: 'bob' }), 'b2', 4_000); // bob's own chat
        await waiting(
          newThread({ workspace: `${workspace}-other`, type: 'automation', automationId: 'aut_x' }),
          'x1',
          5_000,
        );
        await repository.create(newThread()); // nothing pending

        const forEditor = await repository.listPending(workspace, 'alice', true, 50);
        expect(forEditor.map((entry) => entry.threadId)).toEqual([bobRun, aliceRun, aliceChat]);
        expect(forEditor[0]).toEqual({
          threadId: bobRun,
          type: 'automation',
          automationId: 'aut_b',
          userId: 'bob',
          graphKey: 'nba-workflow',
          pendingInterrupt: { ...pending('b1'), createdTime: 3_000 },
        });
        expect(forEditor[2]).toMatchObject({ type: 'chat', userId: 'alice' });
        expect(forEditor[2]).not.toHaveProperty('automationId');
        expect((await repository.listPending(workspace, 'alice', false, 50)).map((entry) => entry.threadId)).toEqual([
          aliceChat,
        ]);
        expect((await repository.listPending(workspace, 'alice', true, 2)).map((entry) => entry.threadId)).toEqual([
          bobRun,
          aliceRun,
        ]);

        await repository.commit(bobRun, {
          operationId: randomUUID(),
          expectedRevision: 1,
          append: [],
          pendingInterrupt: null,
        });
        expect((await repository.listPending(workspace, 'alice', true, 50)).map((entry) => entry.threadId)).toEqual([
          aliceRun,
          aliceChat,
        ]);
      });

      it('deletes a thread with its messages', async () => {
        const thread = newThread();
        await repository.create(thread);
        await repository.commit(thread.threadId, {
          operationId: randomUUID(),
          expectedRevision: 0,
          append: [userMessage('Q')],
        });
        expect(await repository.delete(thread.threadId)).toBe(true);
        expect(await repository.get(thread.threadId)).toBeNull();
        expect(await repository.list(workspace, 'alice', 'nba-workflow')).toEqual([]);
        expect(await repository.delete(thread.threadId)).toBe(false);
      });
    });

    describe('commits', () => {
      it('appends each round in order and bumps the revision', async () => {
        const thread = newThread();
        await repository.create(thread);
        const round1: ThreadMessage[] = [
          systemPrompt('PROMPT'),
          ragContext('CONTEXT'),
          userMessage('Which nodes fetch data?'),
          assistantMessage(null, [toolCall('c1', 'search_nodes', { query: 'fetch' }), toolCall('c2')]),
          toolResult('c1', '[{"key":"fetch-api"}]'),
          toolResult('c2', '{"key":"root"}'),
        ];
        const round2: ThreadMessage[] = [
          eventMessage('Created 1 node'),
          assistantMessage('fetch-api fetches the data.'),
        ];
        const round3: ThreadMessage[] = [userMessage('Thanks'), assistantMessage('You are wel', undefined, true)];

        const first = await repository.commit(thread.threadId, {
          operationId: randomUUID(),
          expectedRevision: 0,
          append: round1,
        });
        expect(first).toEqual({ applied: true, revision: 1, lastUpdatedTime: expect.any(Number) });
        await repository.commit(thread.threadId, { operationId: randomUUID(), expectedRevision: 1, append: round2 });
        const third = await repository.commit(thread.threadId, {
          operationId: randomUUID(),
          expectedRevision: 2,
          append: round3,
        });

        const stored = await repository.get(thread.threadId);
        expect(stored?.revision).toBe(3);
        // Each message is read back with the thread it belongs to (docs/threads.md, "Isolation").
        expect(stored?.messages).toEqual(
          [...round1, ...round2, ...round3].map((message) => ({ ...message, threadId: thread.threadId })),
        );
        expect(stored?.lastUpdatedTime).toBe(third.lastUpdatedTime);
      });

      it('refuses a commit against a stale revision and changes nothing', async () => {
        const thread = newThread();
        await repository.create(thread);
        await repository.commit(thread.threadId, {
          operationId: randomUUID(),
          expectedRevision: 0,
          append: [userMessage('Q1')],
        });
        const before = await repository.get(thread.threadId);

        const stale = repository.commit(thread.threadId, {
          operationId: randomUUID(),
          expectedRevision: 0,
          append: [userMessage('Q from a stale writer')],
          pendingInterrupt: pending('x'),
          title: 'changed',
        });
        await expect(stale).rejects.toBeInstanceOf(ThreadRevisionConflictError);
        await expect(stale).rejects.toMatchObject({
          threadId: thread.threadId,
          expectedRevision: 0,
          actualRevision: 1,
        });
        expect(await repository.get(thread.threadId)).toEqual(before);
      });

      it('treats a replayed operation id as already applied, even after later commits, and changes nothing', async () => {
        const thread = newThread();
        await repository.create(thread);
        const operationId = randomUUID();
        const commit = { operationId, expectedRevision: 0, append: [userMessage('Q'), assistantMessage('A')] };
        await repository.commit(thread.threadId, commit);
        const replay = await repository.commit(thread.threadId, commit);
        expect(replay).toEqual({ applied: false, revision: 1, lastUpdatedTime: expect.any(Number) });

        await repository.commit(thread.threadId, {
          operationId: randomUUID(),
          expectedRevision: 1,
          append: [userMessage('Q2')],
        });
        const before = await repository.get(thread.threadId);
        expect(await repository.commit(thread.threadId, commit)).toMatchObject({ applied: false, revision: 2 });
        expect(await repository.get(thread.threadId)).toEqual(before);
        expect(before?.messages).toHaveLength(3);
      });

      it('sets, keeps and clears the pending interrupt, and updates the title', async () => {
        const thread = newThread();
        await repository.create(thread);
        const interrupt = pending('w1');
        await repository.commit(thread.threadId, {
          operationId: randomUUID(),
          expectedRevision: 0,
          append: [userMessage('Add a node'), assistantMessage(null, [toolCall('w1', 'propose_create_node')])],
          pendingInterrupt: interrupt,
          title: 'Add a node',
        });
        expect(await repository.get(thread.threadId)).toMatchObject({
          pendingInterrupt: interrupt,
          title: 'Add a node',
        });

        await repository.commit(thread.threadId, { operationId: randomUUID(), expectedRevision: 1, append: [] });
        expect((await repository.get(thread.threadId))?.pendingInterrupt).toEqual(interrupt);

        await repository.commit(thread.threadId, {
          operationId: randomUUID(),
          expectedRevision: 2,
          append: [toolResult('w1', '{"status":"approved","message":"done"}')],
          pendingInterrupt: null,
        });
        const stored = await repository.get(thread.threadId);
        expect(stored).toMatchObject({ pendingInterrupt: null, title: 'Add a node', revision: 3 });
        expect((await repository.list(workspace, 'alice', 'nba-workflow'))[0].pendingInterrupt).toBe(false);
      });

      it('removes a rolled-back turn from a message on, appends in its place, and counts what is left', async () => {
        const thread = newThread();
        await repository.create(thread);
        const kept = [userMessage('Q1'), assistantMessage('A1')];
        const turn = userMessage('Q2');
        await repository.commit(thread.threadId, { operationId: randomUUID(), expectedRevision: 0, append: kept });
        await repository.commit(thread.threadId, {
          operationId: randomUUID(),
          expectedRevision: 1,
          append: [turn, ragContext('CONTEXT'), assistantMessage(null, [toolCall('r1')]), toolResult('r1', '{}')],
        });
        const replacement = [userMessage('Q2, said again'), assistantMessage('A2')];
        const discard = {
          operationId: randomUUID(),
          expectedRevision: 2,
          discardFrom: turn.id,
          append: replacement,
          pendingInterrupt: null,
        };
        expect(await repository.commit(thread.threadId, discard)).toMatchObject({ applied: true, revision: 3 });

        const stored = await repository.get(thread.threadId);
        expect(stored?.messages).toEqual(
          [...kept, ...replacement].map((message) => ({ ...message, threadId: thread.threadId })),
        );
        expect((await repository.list(workspace, 'alice', 'nba-workflow'))[0].messageCount).toBe(4);
        // A replay discards nothing more; an id no message has removes nothing.
        expect(await repository.commit(thread.threadId, discard)).toMatchObject({ applied: false, revision: 3 });
        await repository.commit(thread.threadId, {
          operationId: randomUUID(),
          expectedRevision: 3,
          discardFrom: 'msg_not_in_the_thread',
          append: [userMessage('Q3')],
        });
        expect((await repository.get(thread.threadId))?.messages.map((message) => message.content)).toEqual([
          'Q1',
          'A1',
          'Q2, said again',
          'A2',
          'Q3',
        ]);
      });

      it('refuses a commit to a thread that does not exist', async () => {
        const commit = repository.commit(generateThreadId(), {
          operationId: randomUUID(),
          expectedRevision: 0,
          append: [userMessage('Q')],
        });
        await expect(commit).rejects.toBeInstanceOf(AppError);
        await expect(commit).rejects.toMatchObject({ code: 'not_found' });
      });

      it('lets exactly one of two concurrent commits on the same revision win', async () => {
        const thread = newThread();
        await repository.create(thread);
        const outcomes = await Promise.allSettled(
          ['first', 'second'].map((text) =>
            repository.commit(thread.threadId, {
              operationId: randomUUID(),
              expectedRevision: 0,
              append: [userMessage(text)],
            }),
          ),
        );
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
        const rejected = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
        expect(rejected?.reason).toBeInstanceOf(ThreadRevisionConflictError);
        expect((await repository.get(thread.threadId))?.messages).toHaveLength(1);
      });
    });

    describe('leases', () => {
      const now = 1_700_000_000_000;

      it('is exclusive while held and free again after release', async () => {
        const threadId = generateThreadId();
        expect(await repository.acquireLease(threadId, 'run-a', 60_000, now)).toBe(true);
        expect(await repository.acquireLease(threadId, 'run-b', 60_000, now + 1)).toBe(false);
        await repository.releaseLease(threadId, 'run-b'); // not the holder: no effect
        expect(await repository.acquireLease(threadId, 'run-b', 60_000, now + 2)).toBe(false);
        await repository.releaseLease(threadId, 'run-a');
        expect(await repository.acquireLease(threadId, 'run-b', 60_000, now + 3)).toBe(true);
      });

      it('records a run’s usage with the release of its lease, and records it even when another holder has the lease', async () => {
        const thread = await repository.create(newThread());
        expect(await repository.acquireLease(thread.threadId, 'run-a', 60_000, now)).toBe(true);
        await repository.releaseLease(thread.threadId, 'run-a', { workspace, usage: usage(10, 0.25), now: now + 1 });
        expect((await repository.getHead(thread.threadId))?.usage).toEqual(usage(10, 0.25));
        expect(await repository.getWorkspaceUsage(workspace)).toEqual(usage(10, 0.25));
        expect(await repository.acquireLease(thread.threadId, 'run-b', 60_000, now + 2)).toBe(true);
        await repository.releaseLease(thread.threadId, 'run-a', { workspace, usage: usage(1, 0.25), now: now + 3 }); // run-a lost it: usage kept, lease untouched
        expect(await repository.acquireLease(thread.threadId, 'run-c', 60_000, now + 4)).toBe(false);
        expect((await repository.getHead(thread.threadId))?.usage).toMatchObject({
          promptTokens: 11,
          llmCalls: 2,
          costUsd: 0.5,
        });
        expect(await repository.getWorkspaceUsage(workspace)).toMatchObject({ promptTokens: 11, llmCalls: 2 });
      });

      /** Run a's last round: a question and its answer, ending the run with a usage of 10 tokens. */
      const lastRoundOfRunA = () => ({
        last: { operationId: randomUUID(), expectedRevision: 0, append: [userMessage('Q'), assistantMessage('A')] },
        end: { holder: 'run-a', usage: { workspace, usage: usage(10, 0.25), now: now + 1 } },
      });

      it('ends a run with its last round: the round, its usage and the release of its lease in one write', async () => {
        const thread = await repository.create(newThread());
        expect(await repository.acquireLease(thread.threadId, 'run-a', 60_000, now)).toBe(true);
        const { last, end } = lastRoundOfRunA();
        expect(await repository.commit(thread.threadId, last, end)).toMatchObject({ applied: true, revision: 1 });
        const stored = await repository.get(thread.threadId);
        expect(stored?.messages.map((message) => message.content)).toEqual(['Q', 'A']);
        expect(stored?.revision).toBe(1);
        expect(stored?.usage).toEqual(usage(10, 0.25));
        expect(await repository.getWorkspaceUsage(workspace)).toEqual(usage(10, 0.25));
        expect(await repository.acquireLease(thread.threadId, 'run-b', 60_000, now + 2)).toBe(true);
      });

      it('ends a run without usage (no upstream call) with its last round: the lease released, no usage added', async () => {
        const thread = await repository.create(newThread());
        expect(await repository.acquireLease(thread.threadId, 'run-a', 60_000, now)).toBe(true);
        const last = { operationId: randomUUID(), expectedRevision: 0, append: [userMessage('Q')] };
        expect(await repository.commit(thread.threadId, last, { holder: 'run-a' })).toMatchObject({ applied: true });
        expect((await repository.getHead(thread.threadId))?.usage).toMatchObject({ totalTokens: 0, llmCalls: 0 });
        expect(await repository.acquireLease(thread.threadId, 'run-b', 60_000, now + 1)).toBe(true);
      });

      it('writes nothing of a refused last round: the lease stays held, no usage is added', async () => {
        const thread = await repository.create(newThread());
        expect(await repository.acquireLease(thread.threadId, 'run-a', 60_000, now)).toBe(true);
        await repository.commit(thread.threadId, {
          operationId: randomUUID(),
          expectedRevision: 0,
          append: [userMessage('Q')],
        });
        const stale = repository.commit(
          thread.threadId,
          { operationId: randomUUID(), expectedRevision: 0, append: [assistantMessage('A')] },
          { holder: 'run-a', usage: { workspace, usage: usage(10), now: now + 1 } },
        );
        await expect(stale).rejects.toBeInstanceOf(ThreadRevisionConflictError);
        expect((await repository.get(thread.threadId))?.messages).toHaveLength(1);
        expect((await repository.getHead(thread.threadId))?.usage).toMatchObject({ totalTokens: 0, llmCalls: 0 });
        expect(await repository.getWorkspaceUsage(workspace)).toMatchObject({ totalTokens: 0, llmCalls: 0 });
        expect(await repository.acquireLease(thread.threadId, 'run-b', 60_000, now + 2)).toBe(false);
      });

      it('releases the lease on a replayed last round without adding its usage twice', async () => {
        const thread = await repository.create(newThread());
        expect(await repository.acquireLease(thread.threadId, 'run-a', 60_000, now)).toBe(true);
        const { last, end } = lastRoundOfRunA();
        await repository.commit(thread.threadId, last, end);
        // The same holder holds the lease again when the replay comes (an attempt whose answer was lost).
        expect(await repository.acquireLease(thread.threadId, 'run-a', 60_000, now + 2)).toBe(true);
        expect(await repository.commit(thread.threadId, last, end)).toMatchObject({ applied: false, revision: 1 });
        expect((await repository.get(thread.threadId))?.messages).toHaveLength(2);
        expect((await repository.getHead(thread.threadId))?.usage).toEqual(usage(10, 0.25));
        expect(await repository.getWorkspaceUsage(workspace)).toEqual(usage(10, 0.25));
        expect(await repository.acquireLease(thread.threadId, 'run-b', 60_000, now + 3)).toBe(true);
      });

      it('never releases another holder’s lease with a last round, and still records the run’s usage', async () => {
        const thread = await repository.create(newThread());
        expect(await repository.acquireLease(thread.threadId, 'run-a', 1_000, now)).toBe(true);
        expect(await repository.acquireLease(thread.threadId, 'run-b', 60_000, now + 1_000)).toBe(true); // run-a's expired
        const last = { operationId: randomUUID(), expectedRevision: 0, append: [userMessage('Q')] };
        await repository.commit(thread.threadId, last, { holder: 'run-a', usage: { workspace, usage: usage(1), now } });
        expect(await repository.acquireLease(thread.threadId, 'run-c', 60_000, now + 1_001)).toBe(false);
        expect((await repository.getHead(thread.threadId))?.usage).toMatchObject({ promptTokens: 1, llmCalls: 1 });
      });

      it('lets the same holder acquire again (a retried acquire)', async () => {
        const threadId = generateThreadId();
        expect(await repository.acquireLease(threadId, 'run-a', 60_000, now)).toBe(true);
        expect(await repository.acquireLease(threadId, 'run-a', 60_000, now + 10)).toBe(true);
        expect(await repository.acquireLease(threadId, 'run-b', 60_000, now + 60_005)).toBe(false);
      });

      it('can be taken over once expired', async () => {
        const threadId = generateThreadId();
        expect(await repository.acquireLease(threadId, 'run-a', 1_000, now)).toBe(true);
        expect(await repository.acquireLease(threadId, 'run-b', 1_000, now + 999)).toBe(false);
        expect(await repository.acquireLease(threadId, 'run-b', 1_000, now + 1_000)).toBe(true);
        expect(await repository.renewLease(threadId, 'run-a', 1_000, now + 1_001)).toBe(false);
      });

      it('is extended by a renewal from its holder only', async () => {
        const threadId = generateThreadId();
        await repository.acquireLease(threadId, 'run-a', 1_000, now);
        expect(await repository.renewLease(threadId, 'run-a', 1_000, now + 900)).toBe(true);
        expect(await repository.renewLease(threadId, 'run-b', 1_000, now + 900)).toBe(false);
        expect(await repository.acquireLease(threadId, 'run-b', 1_000, now + 1_500)).toBe(false);
        expect(await repository.acquireLease(threadId, 'run-b', 1_000, now + 1_900)).toBe(true);
      });

      it('is held per thread', async () => {
        expect(await repository.acquireLease(generateThreadId(), 'run-a', 60_000, now)).toBe(true);
        expect(await repository.acquireLease(generateThreadId(), 'run-b', 60_000, now)).toBe(true);
      });

      it('gives a concurrently requested lease to exactly one holder', async () => {
        const threadId = generateThreadId();
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, index) => repository.acquireLease(threadId, `run-${index}`, 60_000, now)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
      });
    });

    describe('usage', () => {
      it('accumulates per thread and per workspace', async () => {
        const thread = newThread();
        await repository.create(thread);
        await repository.addUsage(workspace, thread.threadId, usage(100, 0.01), 1);
        await repository.addUsage(workspace, thread.threadId, usage(10, 0.002), 2);
        await repository.addUsage(workspace, null, usage(1, 0.0005), 3); // usage outside any thread

        const expectedThread = {
          promptTokens: 110,
          completionTokens: 220,
          cachedTokens: 55,
          totalTokens: 330,
          llmCalls: 2,
        };
        const stored = await repository.get(thread.threadId);
        expect(stored?.usage).toMatchObject(expectedThread);
        expect(stored?.usage.costUsd).toBeCloseTo(0.012, 9);
        expect((await repository.getHead(thread.threadId))?.usage).toEqual(stored?.usage);
        expect(stored?.revision).toBe(0); // usage does not move the revision a run commits against

        const totals = await repository.getWorkspaceUsage(workspace);
        expect(totals).toMatchObject({
          promptTokens: 111,
          completionTokens: 222,
          cachedTokens: 55,
          totalTokens: 333,
          llmCalls: 3,
        });
        expect(totals.costUsd).toBeCloseTo(0.0125, 9);
        expect(await repository.getWorkspaceUsage(`${workspace}-other`)).toEqual({
          promptTokens: 0,
          completionTokens: 0,
          cachedTokens: 0,
          totalTokens: 0,
          costUsd: 0,
          llmCalls: 0,
        });
      });

      it('keeps the workspace usage of a thread that is gone', async () => {
        await repository.addUsage(workspace, generateThreadId(), usage(7), 1);
        expect((await repository.getWorkspaceUsage(workspace)).promptTokens).toBe(7);
      });
    });

    describe('idempotency keys', () => {
      const now = 1_700_000_000_000;
      const HOLD = 2 * 60_000;
      const scope = (key: string, userId = 'alice') => ({ workspace, userId, key });

      /** Reserves the key, which must be free, and answers the reservation's token. */
      async function reserved(key: ReturnType<typeof scope>, at = now): Promise<string> {
        const claim = await repository.reserveIdempotencyKey(key, HOLD, at);
        expect(claim).toEqual({ state: 'reserved', token: expect.any(String) });
        return (claim as { token: string }).token;
      }

      it('reserves a key once, then reports it in progress, then returns the completed answer', async () => {
        const token = await reserved(scope('k1'));
        expect(await repository.reserveIdempotencyKey(scope('k1'), HOLD, now + 1)).toEqual({ state: 'in_progress' });
        const answer = {
          threadId: 'ai_x',
          type: 'message',
          message: 'Hello',
          toolCalls: [],
          usage: { totalTokens: 3 },
        };
        expect(await repository.completeIdempotencyKey(scope('k1'), token, answer, 24 * HOUR)).toBe(true);
        expect(await repository.reserveIdempotencyKey(scope('k1'), HOLD, now + 2)).toEqual({
          state: 'completed',
          response: answer,
        });
      });

      it('scopes keys by workspace and user, each reservation with a token of its own', async () => {
        const tokens = [
          await reserved(scope('k1')),
          await reserved(scope('k1', 'bob')),
          await reserved({ workspace: `${workspace}-other`, userId: 'alice', key: 'k1' }),
        ];
        expect(new Set(tokens).size).toBe(3);
      });

      it('keeps a completed answer for its time from the first request, then forgets the key', async () => {
        const token = await reserved(scope('k1'));
        await repository.completeIdempotencyKey(scope('k1'), token, { first: true }, HOUR);
        // Long after the reservation's short hold, the answer is still there.
        expect(await repository.reserveIdempotencyKey(scope('k1'), HOLD, now + HOLD + 1)).toEqual({
          state: 'completed',
          response: { first: true },
        });
        expect((await repository.reserveIdempotencyKey(scope('k1'), HOLD, now + HOUR - 1)).state).toBe('completed');
        await reserved(scope('k1'), now + HOUR);
      });

      it('frees a reservation its process never completed (it crashed) once the hold has passed, not 24 h later', async () => {
        await reserved(scope('k1'));
        expect(await repository.reserveIdempotencyKey(scope('k1'), HOLD, now + HOLD - 1)).toEqual({
          state: 'in_progress',
        });
        const retry = await reserved(scope('k1'), now + HOLD);
        // The retry that took it over answers for good.
        await repository.completeIdempotencyKey(scope('k1'), retry, 'retried', 24 * HOUR);
        expect(await repository.reserveIdempotencyKey(scope('k1'), HOLD, now + 2 * HOLD)).toEqual({
          state: 'completed',
          response: 'retried',
        });
      });

      it('lets a holder whose reservation lapsed and was taken over touch nothing of the newer one', async () => {
        const lapsed = await reserved(scope('k1'));
        const newer = await reserved(scope('k1'), now + HOLD + 1);
        expect(newer).not.toBe(lapsed);
        // The lapsed holder comes back: it can neither renew, complete nor release the newer reservation.
        expect(await repository.renewIdempotencyKey(scope('k1'), lapsed, HOLD, now + HOLD + 2)).toBe(false);
        expect(await repository.completeIdempotencyKey(scope('k1'), lapsed, 'stale answer', 24 * HOUR)).toBe(false);
        expect(await repository.releaseIdempotencyKey(scope('k1'), lapsed)).toBe(false);
        expect(await repository.reserveIdempotencyKey(scope('k1'), HOLD, now + HOLD + 3)).toEqual({
          state: 'in_progress',
        });
        // The newer holder still owns it: renews past the lapsed one's attempts, then answers.
        expect(await repository.renewIdempotencyKey(scope('k1'), newer, HOLD, now + 2 * HOLD)).toBe(true);
        expect(await repository.reserveIdempotencyKey(scope('k1'), HOLD, now + 3 * HOLD - 1)).toEqual({
          state: 'in_progress',
        });
        expect(await repository.completeIdempotencyKey(scope('k1'), newer, 'fresh answer', 24 * HOUR)).toBe(true);
        expect(await repository.reserveIdempotencyKey(scope('k1'), HOLD, now + 3 * HOLD + 1)).toEqual({
          state: 'completed',
          response: 'fresh answer',
        });
      });

      it('lets a holder complete its own reservation after its hold passed, as long as no retry took the key', async () => {
        const token = await reserved(scope('k1'));
        expect(await repository.renewIdempotencyKey(scope('k1'), token, HOLD, now + HOLD + 1)).toBe(false);
        expect(await repository.completeIdempotencyKey(scope('k1'), token, 'late answer', 24 * HOUR)).toBe(true);
        expect(await repository.reserveIdempotencyKey(scope('k1'), HOLD, now + HOLD + 2)).toEqual({
          state: 'completed',
          response: 'late answer',
        });
      });

      it('renews a live reservation for another hold, but neither an expired nor a completed one', async () => {
        const token = await reserved(scope('k1'));
        expect(await repository.renewIdempotencyKey(scope('k1'), token, HOLD, now + HOLD / 2)).toBe(true);
        // Past the first hold, within the renewed one: still running.
        expect(await repository.reserveIdempotencyKey(scope('k1'), HOLD, now + HOLD + 1)).toEqual({
          state: 'in_progress',
        });
        expect(await repository.renewIdempotencyKey(scope('k1'), token, HOLD, now + 2 * HOLD)).toBe(false);
        expect(await repository.renewIdempotencyKey(scope('never-reserved'), token, HOLD, now)).toBe(false);

        const second = await reserved(scope('k2'));
        await repository.completeIdempotencyKey(scope('k2'), second, 'done', HOUR);
        expect(await repository.renewIdempotencyKey(scope('k2'), second, HOLD, now + 1)).toBe(false);
        expect(await repository.reserveIdempotencyKey(scope('k2'), HOLD, now + HOUR - 1)).toEqual({
          state: 'completed',
          response: 'done',
        });
      });

      it('frees a reservation that is released (failed run) but never a completed answer', async () => {
        const first = await reserved(scope('k1'));
        expect(await repository.releaseIdempotencyKey(scope('k1'), first)).toBe(true);
        const second = await reserved(scope('k1'));
        await repository.completeIdempotencyKey(scope('k1'), second, 'answer', HOUR);
        expect(await repository.releaseIdempotencyKey(scope('k1'), second)).toBe(false);
        expect(await repository.reserveIdempotencyKey(scope('k1'), HOLD, now)).toEqual({
          state: 'completed',
          response: 'answer',
        });
      });

      it('gives a concurrently reserved key to exactly one request', async () => {
        const results = await Promise.all(
          Array.from({ length: 6 }, () => repository.reserveIdempotencyKey(scope('race'), HOLD, now)),
        );
        expect(results.filter((result) => result.state === 'reserved')).toHaveLength(1);
        expect(results.filter((result) => result.state === 'in_progress')).toHaveLength(5);
      });
    });
  });
}
