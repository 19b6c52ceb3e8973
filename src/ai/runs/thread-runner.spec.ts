import { RecordingSink } from '../../../test/support/agent.harness';
import { ThreadServiceFixture, ThreadServiceInstance } from '../../../test/support/thread-service.fixture';
import { Principal } from '../../auth/principal';
import { AppError } from '../../errors/app-error';
import { LogEntry } from '../../observability/log-entry';
import { configureLogging, Logger, resetLogSink, setLogSink } from '../../observability/logger';
import { ThreadRecord } from '../../threads/thread.types';
import { AgentResult } from '../agent/agent-result';
import { DEFAULT_RUN_SETUP_SLOTS } from './run-setup.gate';
import { RunEnd } from './agent-run.observer';
import { RunOutcome, RunRequest, ThreadRun, ThreadRunEnd, ThreadRunner } from './thread-runner';
import type { RunKind } from './agent-run.observer';

const alice: Principal = { userId: 'alice', workspace: 'default', role: 'editor' };

/** A run driven as the use cases drive one: begin, find the thread, lease it, the body, then finish (or fail). */
async function drive(
  runner: ThreadRunner,
  kind: RunKind,
  request: RunRequest,
  start: () => Promise<{ thread: ThreadRecord }>,
  body: (started: { thread: ThreadRecord }, run: ThreadRun) => Promise<RunOutcome>,
): Promise<AgentResult> {
  const session = await runner.begin(kind, request);
  let started: { thread: ThreadRecord };
  try {
    started = await start();
    await session.leaseThread(started.thread);
  } catch (error) {
    return session.abandon(error);
  }
  try {
    return await session.finish(await body(started, session));
  } catch (error) {
    return session.fail(error);
  }
}

describe(ThreadRunner.name, () => {
  let fixture: ThreadServiceFixture;
  let instance: ThreadServiceInstance;
  let runner: ThreadRunner;
  let thread: ThreadRecord;
  let logs: LogEntry[];

  beforeEach(async () => {
    fixture = new ThreadServiceFixture();
    instance = fixture.instance();
    runner = new ThreadRunner(instance.service, new Logger('agent'));
    thread = await instance.service.create(alice, 'nba-workflow', 'A thread');
    logs = [];
    configureLogging({ level: 'info' });
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(async () => {
    resetLogSink();
    await fixture.close();
  });

  const request = (sink = new RecordingSink()) => ({ principal: alice, sink, signal: new AbortController().signal });
  const result = (threadId: string): AgentResult => ({
    threadId,
    type: 'message',
    message: 'Done.',
    toolCalls: [],
    usage: { promptTokens: 10, completionTokens: 2, cachedTokens: 0, totalTokens: 12, costUsd: 0.001, llmCalls: 1 },
  });
  const answer = (threadId: string): RunOutcome => ({
    result: result(threadId),
    stats: { stopReason: 'answer', rounds: 0, toolResults: 0 },
  });

  it('runs the body under the lease, records its usage, and completes after the lease is released', async () => {
    const sink = new RecordingSink();
    let leaseHeldDuringBody = false;
    const completed = await drive(
      runner,
      'chat',
      request(sink),
      async () => ({ thread }),
      async ({ thread: started }, run) => {
        await expect(instance.service.acquireRun(started.threadId)).rejects.toMatchObject({ code: 'thread_busy' });
        leaseHeldDuringBody = true;
        await run.pause();
        run.usage.add({ promptTokens: 10, completionTokens: 2, cachedTokens: 0, totalTokens: 12 }, 0.001);
        await run.handOver();
        return answer(started.threadId);
      },
    );
    expect(leaseHeldDuringBody).toBe(true);
    expect(sink.events).toEqual([{ type: 'complete', result: completed }]);
    const lease = await instance.service.acquireRun(thread.threadId);
    await lease.release();
    expect((await instance.service.load(alice, thread.threadId)).usage).toMatchObject({
      promptTokens: 10,
      completionTokens: 2,
      llmCalls: 1,
    });
    expect(logs).toContainEqual(
      expect.objectContaining({
        event: 'agent_run_done',
        kind: 'chat',
        threadId: thread.threadId,
        outcome: 'message',
        stopReason: 'answer',
        rounds: 0,
      }),
    );
  });

  it('on a failure: logs it, records the usage so far, releases the lease, rethrows, and never completes', async () => {
    const sink = new RecordingSink();
    const failing = drive(
      runner,
      'resume',
      request(sink),
      async () => ({ thread }),
      async (_started, run) => {
        run.usage.add({ promptTokens: 5, completionTokens: 0, cachedTokens: 0, totalTokens: 5 }, 0);
        throw AppError.conflict('No pending interrupt on this thread');
      },
    );
    await expect(failing).rejects.toMatchObject({ code: 'conflict' });
    expect(sink.events).toEqual([]);
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'info',
        event: 'agent_run_failed',
        kind: 'resume',
        code: 'conflict',
        stopReason: 'error',
      }),
    );
    expect((await instance.service.load(alice, thread.threadId)).usage.promptTokens).toBe(5);
    await (await instance.service.acquireRun(thread.threadId)).release();
  });

  it('records the usage on its own when the write that records it with the lease’s release fails', async () => {
    const release = jest
      .spyOn(instance.repository, 'releaseLease')
      .mockRejectedValueOnce(new Error('database is locked'));
    await drive(
      runner,
      'chat',
      request(),
      async () => ({ thread }),
      async ({ thread: started }, run) => {
        run.usage.add({ promptTokens: 9, completionTokens: 1, cachedTokens: 0, totalTokens: 10 }, 0);
        return answer(started.threadId);
      },
    );
    expect(release).toHaveBeenCalledWith(
      thread.threadId,
      expect.any(String),
      expect.objectContaining({ workspace: 'default' }),
    );
    expect((await instance.service.load(alice, thread.threadId)).usage).toMatchObject({ promptTokens: 9, llmCalls: 1 });
    expect(logs).toContainEqual(
      expect.objectContaining({ event: 'thread_lease_release_failed', threadId: thread.threadId }),
    );
    release.mockRestore();
  });

  it('ends the run with its last round: one write commits it, records the usage and releases the lease', async () => {
    const release = jest.spyOn(instance.repository, 'releaseLease');
    const commit = jest.spyOn(instance.repository, 'commit');
    const sink = new RecordingSink();
    await drive(
      runner,
      'chat',
      request(sink),
      async () => ({ thread }),
      async ({ thread: started }, run) => {
        run.usage.add({ promptTokens: 10, completionTokens: 2, cachedTokens: 0, totalTokens: 12 }, 0.001);
        const question = { id: 'msg_q', role: 'user' as const, content: 'Q', createdTime: 1 };
        const { record } = await run.commit(started, { operationId: 'run-1:0', append: [question] });
        await expect(instance.service.acquireRun(started.threadId)).rejects.toMatchObject({ code: 'thread_busy' });
        const reply = { id: 'msg_a', role: 'assistant' as const, content: 'A', createdTime: 2 };
        await run.commit(record, { operationId: 'run-1:1', append: [reply] }, { last: true });
        // Free at once: the next run of the thread does not wait for this one's answer to go out.
        await (await instance.service.acquireRun(started.threadId)).release();
        return answer(started.threadId);
      },
    );
    expect(commit).toHaveBeenCalledTimes(2);
    expect(commit.mock.calls[0][2]).toBeUndefined();
    expect(commit.mock.calls[1][2]).toEqual({
      holder: expect.any(String),
      usage: expect.objectContaining({ workspace: 'default', usage: expect.objectContaining({ promptTokens: 10 }) }),
    });
    const runHolder = (commit.mock.calls[1][2] as { holder: string }).holder;
    expect(release.mock.calls.filter(([, holder]) => holder === runHolder)).toEqual([]); // no write of its own
    expect(sink.events.map((event) => event.type)).toEqual(['complete']);
    const stored = await instance.service.load(alice, thread.threadId);
    expect(stored.messages.map((message) => message.content)).toEqual(['Q', 'A']);
    expect(stored.usage).toMatchObject({ promptTokens: 10, completionTokens: 2, llmCalls: 1 });
    expect(await instance.service.getWorkspaceUsage('default')).toMatchObject({ promptTokens: 10, llmCalls: 1 });
  });

  it('keeps the lease, and ends the run on its own, when the last round’s write fails', async () => {
    const commit = jest.spyOn(instance.repository, 'commit').mockRejectedValueOnce(new Error('disk I/O error'));
    const failing = drive(
      runner,
      'chat',
      request(),
      async () => ({ thread }),
      async ({ thread: started }, run) => {
        run.usage.add({ promptTokens: 4, completionTokens: 1, cachedTokens: 0, totalTokens: 5 }, 0);
        const reply = { id: 'msg_a', role: 'assistant' as const, content: 'A', createdTime: 2 };
        await run.commit(started, { operationId: 'run-1:0', append: [reply] }, { last: true });
        return answer(started.threadId);
      },
    );
    await expect(failing).rejects.toThrow('disk I/O error');
    expect(commit).toHaveBeenCalledTimes(1);
    expect((await instance.service.load(alice, thread.threadId)).usage).toMatchObject({ promptTokens: 4, llmCalls: 1 });
    await (await instance.service.acquireRun(thread.threadId)).release();
  });

  it('refuses a thread another run holds (thread_busy) without running the body, and frees its setup slot', async () => {
    const held = await instance.service.acquireRun(thread.threadId);
    const body = jest.fn();
    // More refusals than the gate has slots (DEFAULT_RUN_SETUP_SLOTS): a slot kept by any of them would hang the last run.
    for (let attempt = 0; attempt < DEFAULT_RUN_SETUP_SLOTS + 1; attempt++) {
      await expect(drive(runner, 'chat', request(), async () => ({ thread }), body)).rejects.toMatchObject({
        code: 'thread_busy',
      });
    }
    expect(body).not.toHaveBeenCalled();
    await held.release();
    await expect(
      drive(
        runner,
        'chat',
        request(),
        async () => ({ thread }),
        async () => answer(thread.threadId),
      ),
    ).resolves.toMatchObject({ type: 'message' });
  });

  it('frees the setup slot when the start fails (thread not found)', async () => {
    for (let attempt = 0; attempt < DEFAULT_RUN_SETUP_SLOTS + 1; attempt++) {
      const start = async () => ({ thread: await instance.service.load(alice, 'ai_unknown') });
      await expect(drive(runner, 'resume', request(), start, jest.fn())).rejects.toMatchObject({ code: 'not_found' });
    }
    await expect(
      drive(
        runner,
        'chat',
        request(),
        async () => ({ thread }),
        async () => answer(thread.threadId),
      ),
    ).resolves.toMatchObject({ type: 'message' });
  });

  it('aborts the run signal with the request', async () => {
    const controller = new AbortController();
    const running = drive(
      runner,
      'chat',
      { ...request(), signal: controller.signal },
      async () => ({ thread }),
      async (_started, run) => {
        controller.abort();
        expect(run.signal.aborted).toBe(true);
        return answer(thread.threadId);
      },
    );
    await expect(running).resolves.toMatchObject({ type: 'message' });
  });

  it('reports every end of a run that got its thread to the observer, not a refused one', async () => {
    const ends: RunEnd[] = [];
    const observed = new ThreadRunner(instance.service, new Logger('agent'), {
      runEnded: (end) => ends.push(end),
      conflict: () => undefined,
    });
    const held = await instance.service.acquireRun(thread.threadId);
    await expect(drive(observed, 'chat', request(), async () => ({ thread }), jest.fn())).rejects.toMatchObject({
      code: 'thread_busy',
    });
    await held.release();
    await drive(
      observed,
      'chat',
      request(),
      async () => ({ thread }),
      async () => ({
        result: {
          ...result(thread.threadId),
          toolCalls: [{ id: 'c1', name: 'search_nodes', arguments: '{}', status: 'executed' }],
        },
        stats: { stopReason: 'no_progress', rounds: 3, toolResults: 1 },
      }),
    );
    await expect(
      drive(
        observed,
        'resume',
        request(),
        async () => ({ thread }),
        async () => Promise.reject(new Error('boom')),
      ),
    ).rejects.toThrow('boom');
    expect(ends).toEqual([
      { kind: 'chat', stopReason: 'no_progress', rounds: 3, toolCalls: 1, toolResults: 1 },
      { kind: 'resume', stopReason: 'error', rounds: 0, toolCalls: 0, toolResults: 0 },
    ]);
  });

  it('paces each stream within the streams’ share of a turn (AI_STREAM_TURN_BUDGET_MS)', async () => {
    const spendTheTurn = (ms: number): void => {
      const from = performance.now();
      while (performance.now() - from < ms) {
        // the turn's share goes by
      }
    };
    for (const [budgetMs, putOff] of [
      [1, true],
      [0, false],
    ] as const) {
      const paced = new ThreadRunner(instance.service, new Logger('agent'), undefined, undefined, undefined, {
        streamTurnBudgetMs: budgetMs,
      });
      await drive(
        paced,
        'chat',
        request(),
        async () => ({ thread }),
        async ({ thread: started }, run) => {
          expect(run.streamPacer().beforeChunk()).toBeNull();
          spendTheTurn(2);
          const wait = run.streamPacer().beforeChunk();
          expect(wait instanceof Promise).toBe(putOff);
          await wait;
          return answer(started.threadId);
        },
      );
    }
  });

  it("tells the automations how each run on an automation's thread ended (before its answer), never a chat's", async () => {
    const ends: ThreadRunEnd[] = [];
    const order: string[] = [];
    const runner = new ThreadRunner(instance.service, new Logger('agent'), undefined, undefined, async (end) => {
      ends.push(end);
      order.push('told');
    });
    const automationThread = await instance.service.create(alice, 'nba-workflow', 'A run', {
      type: 'automation',
      automationId: 'aut_1',
    });
    const sink = new RecordingSink();
    const complete = sink.complete.bind(sink);
    sink.complete = (result) => {
      order.push('complete');
      complete(result);
    };
    await drive(
      runner,
      'automation',
      request(sink),
      async () => ({ thread: automationThread }),
      async (_started, run) => {
        await run.handOver();
        return answer(automationThread.threadId);
      },
    );
    await drive(
      runner,
      'chat',
      request(),
      async () => ({ thread }),
      async () => answer(thread.threadId),
    );
    await expect(
      drive(
        runner,
        'resume',
        request(),
        async () => ({ thread: automationThread }),
        async () => {
          throw new Error('boom');
        },
      ),
    ).rejects.toThrow('boom');
    expect(
      ends.map((end) => [end.kind, end.thread.threadId, end.ranLoop, end.result?.type, end.error !== undefined]),
    ).toEqual([
      ['automation', automationThread.threadId, true, 'message', false],
      ['resume', automationThread.threadId, false, undefined, true],
    ]);
    expect(order).toEqual(['told', 'complete', 'told']);
  });
});
