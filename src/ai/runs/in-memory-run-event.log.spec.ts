import { InMemoryRunEventLog } from './in-memory-run-event.log';
import { LoggedRunEvent, RunEventListener } from './run-event.log';

const owner = { workspace: 'default', userId: 'ada' };
const token = (seq: number, text = `t${seq}`): LoggedRunEvent => ({ seq, event: 'ai:token', payload: { token: text } });
const complete = (seq: number): LoggedRunEvent => ({
  seq,
  event: 'ai:complete',
  payload: { threadId: 'ai_t', fullText: '', usage: {} },
});

function recorder(): RunEventListener & { seqs: number[]; lostCount: number } {
  const seqs: number[] = [];
  const listener = {
    seqs,
    lostCount: 0,
    events: (events: LoggedRunEvent[]) => seqs.push(...events.map((event) => event.seq)),
    lost: () => listener.lostCount++,
  };
  return listener;
}

describe(InMemoryRunEventLog.name, () => {
  it('replays the events after lastSeq, then forwards the live ones until the terminal event, with no gap and no duplicate', async () => {
    const log = new InMemoryRunEventLog({ maxEventsPerRun: 100, retentionMs: 1000 });
    const writer = log.open('run_1', owner);
    writer.append({ seq: 1, event: 'ai:thread', payload: { threadId: 'ai_t' } });
    writer.markLatest('ai_t');
    for (const seq of [2, 3, 4]) writer.append(token(seq));
    expect(await log.latest('ai_t')).toEqual({ runKey: 'run_1', owner });

    const listener = recorder();
    const outcome = await log.follow('run_1', 2, listener);
    expect(outcome.kind).toBe('following');
    expect(listener.seqs).toEqual([3, 4]);
    writer.append(token(5));
    writer.append(complete(6));
    writer.append(token(7)); // nothing after the terminal event
    expect(listener.seqs).toEqual([3, 4, 5, 6]);
  });

  it('replays a finished request up to its terminal event; stop() ends a follow', async () => {
    const log = new InMemoryRunEventLog({ maxEventsPerRun: 100, retentionMs: 1000 });
    const writer = log.open('run_1', owner);
    writer.append(token(1));
    const stopped = recorder();
    const follow = await log.follow('run_1', 0, stopped);
    if (follow.kind === 'following') follow.stop();
    writer.append(token(2));
    writer.append(complete(3));
    expect(stopped.seqs).toEqual([1]);
    const late = recorder();
    await log.follow('run_1', 1, late);
    expect(late.seqs).toEqual([2, 3]);
  });

  it('keeps a bounded number of events per request: a rejoin before the oldest kept one is refused as trimmed', async () => {
    const log = new InMemoryRunEventLog({ maxEventsPerRun: 10, retentionMs: 1000 });
    const writer = log.open('run_1', owner);
    for (let seq = 1; seq <= 11; seq++) writer.append(token(seq));
    // Past the limit a tenth goes at once: events 1 and 2 are dropped.
    expect(await log.follow('run_1', 1, recorder())).toEqual({ kind: 'trimmed', firstKeptSeq: 3 });
    const listener = recorder();
    expect((await log.follow('run_1', 2, listener)).kind).toBe('following');
    expect(listener.seqs).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('forgets a finished request after the retention, its thread pointer with it, but never a running one', async () => {
    let now = 0;
    const log = new InMemoryRunEventLog({ maxEventsPerRun: 100, retentionMs: 1000 }, () => now);
    const finished = log.open('run_1', owner);
    finished.markLatest('ai_done');
    finished.append(complete(1));
    const running = log.open('run_2', owner);
    running.markLatest('ai_running');
    running.append(token(1));
    now = 1000;
    log.open('run_3', owner); // sweeps
    expect(await log.latest('ai_done')).toBeNull();
    expect(await log.follow('run_1', 0, recorder())).toEqual({ kind: 'gone' });
    expect(await log.latest('ai_running')).toEqual({ runKey: 'run_2', owner });
    expect(log.has('run_2')).toBe(true);
  });

  it("keeps a newer request as its thread's latest when an older one of the thread is dropped", async () => {
    let now = 0;
    const log = new InMemoryRunEventLog({ maxEventsPerRun: 100, retentionMs: 1000 }, () => now);
    const older = log.open('run_1', owner);
    older.markLatest('ai_t');
    older.append(complete(1));
    const newer = log.open('run_2', owner);
    newer.markLatest('ai_t');
    now = 5000;
    log.open('run_3', owner);
    expect(await log.latest('ai_t')).toEqual({ runKey: 'run_2', owner });
  });
});
