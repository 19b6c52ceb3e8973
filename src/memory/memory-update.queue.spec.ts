import { LogEntry } from '../observability/log-entry';
import { resetLogSink, setLogSink } from '../observability/logger';
import { Principal } from '../auth/principal';
import { MemoryUpdateQueue, MemoryUpdateQueueOptions } from './memory-update.queue';
import { MemoryUpdateReport, RecordedTurns } from './thread-memory.writer';

const alice: Principal = { userId: 'alice', workspace: 'w', role: 'editor' };
const written: MemoryUpdateReport = { turns: 1, summaries: { 1: 0, 2: 0 }, embedded: 1, summaryCalls: 0 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Polls (the machine may be busy: no fixed waits) until the condition holds, failing after 5 s. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await sleep(5);
  }
}

/** A queue whose updates only record which thread they were for. */
function recordingQueue(options: MemoryUpdateQueueOptions): { queue: MemoryUpdateQueue; calls: string[] } {
  const calls: string[] = [];
  const queue = new MemoryUpdateQueue(async (_principal, threadId) => {
    calls.push(threadId);
    return written;
  }, options);
  return { queue, calls };
}

describe(MemoryUpdateQueue.name, () => {
  let logs: LogEntry[];
  beforeEach(() => {
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(() => resetLogSink());

  it('runs updates after the caller’s turn, and coalesces requests for one thread', async () => {
    const calls: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const queue = new MemoryUpdateQueue(async (_principal, threadId) => {
      calls.push(threadId);
      await gate;
      return written;
    });
    queue.enqueue(alice, 't1');
    expect(calls).toEqual([]); // nothing in the caller's turn
    await until(() => calls.length === 1);
    queue.enqueue(alice, 't1');
    queue.enqueue(alice, 't1');
    queue.enqueue(alice, 't2');
    release();
    await until(() => calls.length === 3);
    await queue.whenIdle();
    expect(calls.sort()).toEqual(['t1', 't1', 't2']);
    expect(logs.filter((entry) => entry.event === 'memory_updated')).toHaveLength(3);
  });

  it('hands an update the latest turn recording queued with it, never to a run again (a request during it, a retry)', async () => {
    const handed: Array<string | undefined> = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let failures = 1;
    const queue = new MemoryUpdateQueue(
      async (_principal, _threadId, _signal, recorded) => {
        handed.push(recorded === undefined ? undefined : ((await recorded)?.thread.threadId ?? 'none'));
        await gate;
        if (handed.length === 2 && failures-- > 0) throw new Error('store busy');
        return written;
      },
      { retryDelaysMs: [0] },
    );
    const recording = (label: string) => Promise.resolve({ thread: { threadId: label } } as unknown as RecordedTurns);
    queue.enqueue(alice, 't1', recording('first'));
    queue.enqueue(alice, 't1', recording('second')); // coalesced: the latest is handed
    await until(() => handed.length === 1);
    queue.enqueue(alice, 't1', recording('third')); // during the update: it runs again, reading for itself
    release();
    await until(() => handed.length === 3);
    await queue.whenIdle();
    expect(handed).toEqual(['second', undefined, undefined]); // the third: the retry of the second
  });

  it('starts at most `concurrency` updates per turn of the event loop, so a long queue of quick updates never blocks I/O', async () => {
    const { queue, calls } = recordingQueue({ concurrency: 2 });
    for (let index = 0; index < 6; index++) queue.enqueue(alice, `t${index}`);
    const doneAtTurn: number[] = [];
    const watch = () => {
      doneAtTurn.push(calls.length);
      if (calls.length < 6) setImmediate(watch);
    };
    setImmediate(watch);
    await queue.whenIdle();
    expect(calls).toHaveLength(6);
    // Two more in each turn, never all at once (with a synchronous store they would all run in the first).
    expect(doneAtTurn[0]).toBe(2);
    expect(doneAtTurn.every((done, turn) => turn === 0 || done - doneAtTurn[turn - 1] <= 2)).toBe(true);
  });

  it('retries a failed update after its delay, logging each failure, and gives up until the next turn after the last retry', async () => {
    let attempts = 0;
    const queue = new MemoryUpdateQueue(
      async () => {
        attempts += 1;
        throw new Error('upstream down');
      },
      { retryDelaysMs: [10, 10] },
    );
    queue.enqueue(alice, 't1');
    await until(() => logs.some((entry) => entry.event === 'memory_update_failed' && entry.level === 'error'));
    expect(attempts).toBe(3);
    const failures = logs.filter((entry) => entry.event === 'memory_update_failed');
    expect(failures.map((entry) => [entry.level, entry.attempts])).toEqual([
      ['warn', 1],
      ['warn', 2],
      ['error', 3],
    ]);
    expect(failures[2]).toMatchObject({
      threadId: 't1',
      error: 'Error: upstream down',
      next: 'at the thread’s next turn',
    });
    expect(queue.size).toEqual({ pending: 0, running: 0, retrying: 0 });
    queue.enqueue(alice, 't1');
    await until(() => attempts === 4);
  });

  it('runs a waiting retry at once when the thread has a new turn', async () => {
    let attempts = 0;
    const queue = new MemoryUpdateQueue(
      async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('flaky');
        return written;
      },
      { retryDelaysMs: [60_000] },
    );
    queue.enqueue(alice, 't1');
    await until(() => queue.size.retrying === 1);
    queue.enqueue(alice, 't1');
    await until(() => attempts === 2);
    await queue.whenIdle();
    expect(queue.size).toEqual({ pending: 0, running: 0, retrying: 0 });
  });

  it('waits for the runs in progress to be over (and idleMs more) before it starts an update', async () => {
    const { queue, calls } = recordingQueue({ idleMs: 30, maxDeferMs: 60_000 });
    queue.runStarted();
    queue.runStarted();
    queue.enqueue(alice, 't1');
    queue.runSettled();
    await sleep(80);
    expect(calls).toEqual([]); // one run still in progress
    queue.runSettled();
    expect(queue.size.pending).toBe(1);
    await until(() => calls.length === 1);
    await queue.whenIdle();
    expect(calls).toEqual(['t1']);
  });

  it('runs an update that waited maxDeferMs even while runs keep the service busy', async () => {
    const { queue, calls } = recordingQueue({ idleMs: 10, maxDeferMs: 50 });
    queue.runStarted();
    queue.enqueue(alice, 't1');
    await sleep(20);
    expect(calls).toEqual([]);
    await until(() => calls.length === 1);
    await queue.whenIdle();
    queue.runSettled();
  });

  it('starts a waiting update at once when its own thread has a run again', async () => {
    const { queue, calls } = recordingQueue({ idleMs: 10, maxDeferMs: 60_000 });
    queue.runStarted();
    queue.enqueue(alice, 't1');
    queue.enqueue(alice, 't2');
    await sleep(30);
    expect(calls).toEqual([]);
    queue.threadResumed(alice, 't2');
    await until(() => calls.length === 1);
    expect(calls).toEqual(['t2']); // t1 still waits for the run to be over
    queue.runSettled();
    await queue.whenIdle();
    expect(calls).toEqual(['t2', 't1']);
  });

  it('on shutdown, says what it leaves for later, and aborts an update that outlives the timeout', async () => {
    let aborted = false;
    const queue = new MemoryUpdateQueue(
      (_principal, threadId, signal) =>
        threadId === 'slow'
          ? new Promise((_resolve, reject) =>
              signal.addEventListener('abort', () => ((aborted = true), reject(signal.reason))),
            )
          : Promise.reject(new Error('down')),
      { retryDelaysMs: [60_000], concurrency: 2 },
    );
    queue.enqueue(alice, 'slow');
    queue.enqueue(alice, 'failing');
    await until(() => queue.size.running === 1 && queue.size.retrying === 1);
    await queue.shutdown(20);
    expect(aborted).toBe(true);
    expect(logs.find((entry) => entry.event === 'memory_updates_deferred')).toMatchObject({ threads: 1 });
    expect(logs.find((entry) => entry.event === 'memory_updates_aborted')).toMatchObject({ running: 1 });
    queue.enqueue(alice, 'later');
    expect(queue.size).toEqual({ pending: 0, running: 0, retrying: 0 });
  });
});
