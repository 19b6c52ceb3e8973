import { randomUUID } from 'node:crypto';
import { ThreadServiceFixture } from '../../test/support/thread-service.fixture';
import {
  assistantMessage,
  ragContext,
  systemPrompt,
  toolCall,
  toolResult,
  userMessage,
} from '../../test/support/thread-messages';
import type { Principal } from '../auth/principal';
import { AppError } from '../errors/app-error';
import { LogEntry } from '../observability/log-entry';
import { resetLogSink, setLogSink } from '../observability/logger';
import { ThreadCommitValidationError } from './thread-commit-validation.error';
import { IDEMPOTENCY_TTL_MS, ThreadService } from './thread.service';
import { PendingInterrupt } from './thread.types';

const alice: Principal = { userId: 'alice', workspace: 'acme', role: 'editor' };

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: AppError) => error,
  );
}

function expectAppError(code: string) {
  return expect.objectContaining({ code, name: 'AppError' });
}

describe(ThreadService.name, () => {
  let fixture: ThreadServiceFixture;

  beforeEach(() => {
    fixture = new ThreadServiceFixture({ THREAD_CACHE_SIZE: '3', THREAD_LEASE_MS: '1000' });
  });

  afterEach(async () => {
    await fixture.close();
  });

  describe('ownership', () => {
    it('loads a thread for its owner and answers not_found to everyone else, the same way as for no thread', async () => {
      const { service } = fixture.instance();
      const thread = await service.create(alice, 'nba-workflow', 'First question');
      expect(thread.threadId).toMatch(/^ai_/);
      expect(await service.load(alice, thread.threadId)).toMatchObject({
        threadId: thread.threadId,
        title: 'First question',
        revision: 0,
      });
      expect(await service.load({ ...alice, role: 'viewer' }, thread.threadId, 'nba-workflow')).toBeDefined();

      const strangers: Array<[Principal, string | undefined]> = [
        [{ ...alice, userId: 'bob' }, undefined],
        [{ ...alice, workspace: 'other', role: 'admin' }, undefined],
        [alice, 'another-graph'],
      ];
      for (const [principal, graphKey] of strangers) {
        await expect(service.load(principal, thread.threadId, graphKey)).rejects.toEqual(expectAppError('not_found'));
      }
      const [a, b, c] = await Promise.all([
        rejection(service.load(alice, 'ai_0000000000000000000000000')),
        rejection(service.load(alice, '../etc/passwd')),
        rejection(service.load({ ...alice, userId: 'bob' }, thread.threadId)),
      ]);
      expect([a, b, c].map((error) => [error.statusCode, error.message])).toEqual([
        [404, 'Thread not found'],
        [404, 'Thread not found'],
        [404, 'Thread not found'],
      ]);
    });

    it('lists and deletes only the principal threads', async () => {
      const { service } = fixture.instance();
      const mine = await service.create(alice, 'g', 'mine');
      await service.create({ ...alice, userId: 'bob' }, 'g', 'bob');
      expect((await service.list(alice, 'g')).map((summary) => summary.threadId)).toEqual([mine.threadId]);
      await expect(service.delete({ ...alice, userId: 'bob' }, mine.threadId)).rejects.toEqual(
        expectAppError('not_found'),
      );
      await service.delete(alice, mine.threadId);
      await expect(service.load(alice, mine.threadId)).rejects.toEqual(expectAppError('not_found'));
      expect(await service.list(alice, 'g')).toEqual([]);
    });
  });

  describe('commits and the cache', () => {
    it('appends rounds, returns frozen records and serves later loads from the cache after a revision check', async () => {
      const { service, repository } = fixture.instance();
      let thread = await service.create(alice, 'g', 't');
      const round = [
        systemPrompt(),
        ragContext('ctx'),
        userMessage('Q'),
        assistantMessage(null, [toolCall('c1')]),
        toolResult('c1', '{"r":1}'),
      ];
      thread = await service.commit(thread, { append: round });
      thread = await service.commit(thread, { append: [assistantMessage('A')] });
      expect(thread.revision).toBe(2);
      expect(thread.messages).toHaveLength(6);
      expect(Object.isFrozen(thread)).toBe(true);
      expect(Object.isFrozen(thread.messages)).toBe(true);

      const get = jest.spyOn(repository, 'get');
      const loaded = await service.load(alice, thread.threadId);
      expect(loaded).toBe(thread);
      expect(get).not.toHaveBeenCalled();
    });

    it('hands out records without the contexts of earlier questions, which stay stored', async () => {
      const { service, repository } = fixture.instance();
      let thread = await service.create(alice, 'g', 't');
      thread = await service.commit(thread, {
        append: [systemPrompt('P'), ragContext('C1'), userMessage('Q1'), assistantMessage('A1')],
      });
      thread = await service.commit(thread, { append: [ragContext('C2'), userMessage('Q2')] });
      expect(thread.messages.map((message) => message.content)).toEqual(['P', 'Q1', 'A1', 'C2', 'Q2']);
      const fromAnotherInstance = await fixture.instance().service.load(alice, thread.threadId);
      expect(fromAnotherInstance.messages).toEqual(thread.messages);
      expect((await repository.get(thread.threadId))?.messages.map((message) => message.content)).toEqual([
        'P',
        'C1',
        'Q1',
        'A1',
        'C2',
        'Q2',
      ]);
    });

    it('refuses a malformed round before writing anything, with a clear error and an error log', async () => {
      const { service } = fixture.instance();
      const logs: LogEntry[] = [];
      setLogSink((entry) => logs.push(entry));
      const thread = await service.create(alice, 'g', 't');
      const refused = service.commit(thread, { append: [userMessage('Q'), toolResult('nope', '{}')] });
      await expect(refused).rejects.toBeInstanceOf(ThreadCommitValidationError);
      await expect(refused).rejects.toMatchObject({
        code: 'internal',
        message: expect.stringMatching(/answers no call of the assistant message before it\. Nothing of it was stored/),
      });
      const round = [
        userMessage('Q'),
        assistantMessage(null, [toolCall('c1', 'search_nodes')]),
        toolResult('c1', 'cut as tex', 'search_nodes'),
      ];
      await expect(service.commit(thread, { append: round })).rejects.toMatchObject({
        message: expect.stringMatching(/does not hold a JSON object/),
      });
      resetLogSink();
      expect((await service.load(alice, thread.threadId)).revision).toBe(0);
      expect((await service.load(alice, thread.threadId)).messages).toEqual([]);
      expect(logs.filter((entry) => entry.event === 'thread_commit_refused')).toEqual([
        expect.objectContaining({
          level: 'error',
          threadId: thread.threadId,
          problem: expect.stringContaining('answers no call'),
        }),
        expect.objectContaining({
          level: 'error',
          threadId: thread.threadId,
          problem: expect.stringContaining('does not hold a JSON object'),
        }),
      ]);
    });

    it('stamps every committed message with its thread, and reads it back from the store', async () => {
      const { service, repository } = fixture.instance();
      const thread = await service.create(alice, 'g', 't');
      const committed = await service.commit(thread, { append: [userMessage('Q'), assistantMessage('A')] });
      expect(committed.messages.map((message) => message.threadId)).toEqual([thread.threadId, thread.threadId]);
      expect((await repository.get(thread.threadId))?.messages.map((message) => message.threadId)).toEqual([
        thread.threadId,
        thread.threadId,
      ]);
      await expect(
        service.commit(committed, { append: [{ ...userMessage('x'), threadId: 'ai_someone_else' }] }),
      ).rejects.toMatchObject({
        message: expect.stringMatching(/belongs to another thread/),
      });
    });

    it('turns a commit from a stale record into thread_busy, writes nothing, and reloads fresh afterwards', async () => {
      const { service } = fixture.instance();
      const thread = await service.create(alice, 'g', 't');
      const current = await service.commit(thread, { append: [userMessage('Q1')] });
      const stale = service.commit(thread, { append: [userMessage('Q from the past')] });
      await expect(stale).rejects.toEqual(expectAppError('thread_busy'));
      await expect(stale).rejects.toMatchObject({ statusCode: 409, retryable: true });
      const reloaded = await service.load(alice, thread.threadId);
      expect(reloaded.messages.map((message) => message.content)).toEqual(['Q1']);
      expect(reloaded).toEqual(current);
    });

    it('applies a replayed operation once and answers with the stored record', async () => {
      const { service } = fixture.instance();
      const thread = await service.create(alice, 'g', 't');
      const round = { operationId: randomUUID(), append: [userMessage('Q'), assistantMessage('A')] };
      const first = await service.commit(thread, round);
      const replay = await service.commit(thread, round);
      expect(replay.revision).toBe(1);
      expect(replay.messages).toHaveLength(2);
      expect(replay).toEqual(first);
    });

    it('keeps, sets and clears the pending interrupt and the title', async () => {
      const { service } = fixture.instance();
      let thread = await service.create(alice, 'g', 't');
      const pending: PendingInterrupt = {
        interrupt: { kind: 'question', toolCallId: 'w1', questionKind: 'confirm', question: 'Which sheet?' },
        toolName: 'propose_create_node',
        remainingToolCalls: [],
        createdTime: 1,
      };
      thread = await service.commit(thread, {
        append: [userMessage('Q'), assistantMessage(null, [toolCall('w1', 'propose_create_node')])],
        pendingInterrupt: pending,
        title: 'Renamed',
      });
      expect(thread).toMatchObject({ pendingInterrupt: pending, title: 'Renamed' });
      thread = await service.commit(thread, { append: [] });
      expect(thread.pendingInterrupt).toEqual(pending);
      thread = await service.commit(thread, {
        append: [toolResult('w1', '{"status":"rejected"}', 'propose_create_node', false)],
        pendingInterrupt: null,
      });
      expect(thread.pendingInterrupt).toBeNull();
      expect(await fixture.instance().service.load(alice, thread.threadId)).toEqual(thread);
    });

    it('keeps at most THREAD_CACHE_SIZE records', async () => {
      const { service, repository } = fixture.instance();
      const threads = [];
      for (let index = 0; index < 4; index += 1) threads.push(await service.create(alice, 'g', `t${index}`));
      const get = jest.spyOn(repository, 'get');
      await service.load(alice, threads[3].threadId);
      expect(get).not.toHaveBeenCalled();
      await service.load(alice, threads[0].threadId); // evicted by the fourth
      expect(get).toHaveBeenCalledTimes(1);
    });
  });

  describe('roaming between instances on one store', () => {
    it('continues a thread written by another instance with its fresh content', async () => {
      const a = fixture.instance().service;
      const b = fixture.instance().service;
      let onA = await a.create(alice, 'g', 't');
      onA = await a.commit(onA, { append: [userMessage('Q1'), assistantMessage('A1')] });

      let onB = await b.load(alice, onA.threadId);
      expect(onB.messages.map((message) => message.content)).toEqual(['Q1', 'A1']);
      onB = await b.commit(onB, { append: [userMessage('Q2'), assistantMessage('A2')] });

      const again = await a.load(alice, onA.threadId);
      expect(again.messages.map((message) => message.content)).toEqual(['Q1', 'A1', 'Q2', 'A2']);
      expect(again.revision).toBe(onB.revision);
      await expect(a.commit(onA, { append: [userMessage('stale')] })).rejects.toEqual(expectAppError('thread_busy'));
    });

    it('sees usage recorded by another instance without reloading the messages', async () => {
      const a = fixture.instance();
      const b = fixture.instance().service;
      const thread = await a.service.create(alice, 'g', 't');
      await b.addUsage(alice.workspace, thread.threadId, {
        promptTokens: 10,
        completionTokens: 5,
        cachedTokens: 0,
        totalTokens: 15,
        costUsd: 0.01,
        llmCalls: 1,
      });
      const get = jest.spyOn(a.repository, 'get');
      const loaded = await a.service.load(alice, thread.threadId);
      expect(loaded.usage).toMatchObject({ totalTokens: 15, llmCalls: 1 });
      expect(get).not.toHaveBeenCalled();
      expect(await a.service.getWorkspaceUsage(alice.workspace)).toMatchObject({ totalTokens: 15 });
    });

    it('forgets a thread deleted by another instance', async () => {
      const a = fixture.instance().service;
      const b = fixture.instance().service;
      const thread = await a.create(alice, 'g', 't');
      await b.delete(alice, thread.threadId);
      await expect(a.load(alice, thread.threadId)).rejects.toEqual(expectAppError('not_found'));
      await expect(a.commit(thread, { append: [userMessage('Q')] })).rejects.toEqual(expectAppError('not_found'));
    });
  });

  describe('runs', () => {
    it('lets one run at a time hold a thread, across instances, and answers thread_busy (409, retryable) to the others', async () => {
      const a = fixture.instance().service;
      const b = fixture.instance().service;
      const thread = await a.create(alice, 'g', 't');
      const lease = await a.acquireRun(thread.threadId);
      await expect(a.acquireRun(thread.threadId)).rejects.toMatchObject({
        code: 'thread_busy',
        statusCode: 409,
        retryable: true,
      });
      await expect(b.acquireRun(thread.threadId)).rejects.toMatchObject({ code: 'thread_busy' });
      await lease.release();
      await lease.release(); // idempotent
      const next = await b.acquireRun(thread.threadId);
      expect(next.lost).toBe(false);
      await next.release();
    });

    it('keeps a long run holding its thread beyond the lease time to live', async () => {
      const a = fixture.instance().service;
      const b = fixture.instance().service;
      const thread = await a.create(alice, 'g', 't');
      const lease = await a.acquireRun(thread.threadId);
      await new Promise((resolve) => setTimeout(resolve, 1_600)); // THREAD_LEASE_MS is 1000
      await expect(b.acquireRun(thread.threadId)).rejects.toMatchObject({ code: 'thread_busy' });
      expect(lease.lost).toBe(false);
      await lease.release();
    });

    it('beginRun checks ownership before the lease, so a stranger never learns the thread is busy', async () => {
      const { service } = fixture.instance();
      const thread = await service.create(alice, 'g', 't');
      const { thread: loaded, lease } = await service.beginRun(alice, thread.threadId, 'g');
      expect(loaded.threadId).toBe(thread.threadId);
      await expect(service.beginRun({ ...alice, userId: 'mallory' }, thread.threadId)).rejects.toEqual(
        expectAppError('not_found'),
      );
      await expect(service.beginRun(alice, thread.threadId)).rejects.toEqual(expectAppError('thread_busy'));
      await lease.release();
    });

    it('beginRun returns the revision stored once the lease is held', async () => {
      const a = fixture.instance().service;
      const b = fixture.instance().service;
      const thread = await a.create(alice, 'g', 't');
      await a.load(alice, thread.threadId);
      await b.commit(await b.load(alice, thread.threadId), { append: [userMessage('from b')] });
      const { thread: loaded, lease } = await a.beginRun(alice, thread.threadId);
      expect(loaded.revision).toBe(1);
      await lease.release();
    });

    it('releases the leases of unfinished runs at shutdown', async () => {
      const a = fixture.instance().service;
      const b = fixture.instance().service;
      const thread = await a.create(alice, 'g', 't');
      await a.acquireRun(thread.threadId);
      await a.beforeApplicationShutdown();
      const lease = await b.acquireRun(thread.threadId);
      await lease.release();
    });
  });

  describe('idempotency keys', () => {
    it('reserves a key per principal, then returns the completed answer', async () => {
      const { service } = fixture.instance();
      expect(await service.reserveIdempotencyKey(alice, 'key-1')).toEqual({ state: 'reserved' });
      expect(await service.reserveIdempotencyKey(alice, 'key-1')).toEqual({ state: 'in_progress' });
      expect(await service.reserveIdempotencyKey({ ...alice, userId: 'bob' }, 'key-1')).toEqual({ state: 'reserved' });
      await service.completeIdempotencyKey(alice, 'key-1', { message: 'first answer' });
      expect(await service.reserveIdempotencyKey(alice, 'key-1')).toEqual({
        state: 'completed',
        response: { message: 'first answer' },
      });
      await service.releaseIdempotencyKey({ ...alice, userId: 'bob' }, 'key-1');
      expect(await service.reserveIdempotencyKey({ ...alice, userId: 'bob' }, 'key-1')).toEqual({ state: 'reserved' });
      expect(IDEMPOTENCY_TTL_MS).toBe(86_400_000);
    });

    it("keeps a running request's key reserved beyond the lease time to live, and stops once it completes", async () => {
      const a = fixture.instance().service;
      const b = fixture.instance().service;
      expect(await a.reserveIdempotencyKey(alice, 'long-run')).toEqual({ state: 'reserved' });
      await new Promise((resolve) => setTimeout(resolve, 1_600)); // THREAD_LEASE_MS is 1000
      expect(await b.reserveIdempotencyKey(alice, 'long-run')).toEqual({ state: 'in_progress' });
      await a.completeIdempotencyKey(alice, 'long-run', { message: 'done' });
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await b.reserveIdempotencyKey(alice, 'long-run')).toEqual({
        state: 'completed',
        response: { message: 'done' },
      });
    });

    it("lets a retry run once a crashed process's reservation has outlived the lease time to live", async () => {
      const crashed = fixture.instance();
      const survivor = fixture.instance().service;
      expect(await crashed.service.reserveIdempotencyKey(alice, 'orphan')).toEqual({ state: 'reserved' });
      await crashed.service.beforeApplicationShutdown(); // the process dies: nothing renews the reservation any more
      expect(await survivor.reserveIdempotencyKey(alice, 'orphan')).toEqual({ state: 'in_progress' });
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await survivor.reserveIdempotencyKey(alice, 'orphan')).toEqual({ state: 'reserved' });
    });

    it('never lets a request whose reservation lapsed overwrite or release the key a retry took over', async () => {
      const stalled = fixture.instance().service;
      const retry = fixture.instance().service;
      expect(await stalled.reserveIdempotencyKey(alice, 'stalled')).toEqual({ state: 'reserved' });
      await stalled.beforeApplicationShutdown(); // stops renewing, as a process stalled past the hold would
      await new Promise((resolve) => setTimeout(resolve, 1_100)); // THREAD_LEASE_MS is 1000
      expect(await retry.reserveIdempotencyKey(alice, 'stalled')).toEqual({ state: 'reserved' });
      // The stalled request finishes late: neither its answer nor its release touches the retry's reservation.
      await stalled.completeIdempotencyKey(alice, 'stalled', { message: 'stale' });
      await stalled.releaseIdempotencyKey(alice, 'stalled');
      expect(await retry.reserveIdempotencyKey(alice, 'stalled')).toEqual({ state: 'in_progress' });
      await retry.completeIdempotencyKey(alice, 'stalled', { message: 'fresh' });
      expect(await stalled.reserveIdempotencyKey(alice, 'stalled')).toEqual({
        state: 'completed',
        response: { message: 'fresh' },
      });
    });

    it('refuses an empty or oversized key', async () => {
      const { service } = fixture.instance();
      await expect(service.reserveIdempotencyKey(alice, '')).rejects.toEqual(expectAppError('bad_request'));
      await expect(service.reserveIdempotencyKey(alice, 'k'.repeat(256))).rejects.toEqual(
        expectAppError('bad_request'),
      );
    });
  });
});
