import { Flushable, TokenFlushScheduler } from './token-flush.scheduler';

function recorder(log: string[], name: string): Flushable {
  return { flush: () => log.push(name) };
}

describe(TokenFlushScheduler.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('flushes every target that asked during a window once, one interval after the first ask', () => {
    const log: string[] = [];
    const scheduler = new TokenFlushScheduler(10);
    const a = recorder(log, 'a');
    const b = recorder(log, 'b');
    scheduler.schedule(a);
    jest.advanceTimersByTime(6);
    scheduler.schedule(b);
    scheduler.schedule(a);
    expect(log).toEqual([]);
    jest.advanceTimersByTime(4);
    expect(log).toEqual(['a', 'b']);
    expect(scheduler.pending).toBe(0);
    jest.advanceTimersByTime(50);
    expect(log).toEqual(['a', 'b']);
  });

  it('starts a new window for asks made after a flush', () => {
    const log: string[] = [];
    const scheduler = new TokenFlushScheduler(10);
    const a = recorder(log, 'a');
    scheduler.schedule(a);
    jest.advanceTimersByTime(10);
    scheduler.schedule(a);
    jest.advanceTimersByTime(9);
    expect(log).toEqual(['a']);
    jest.advanceTimersByTime(1);
    expect(log).toEqual(['a', 'a']);
  });

  it('does not flush a cancelled target, and stops its timer when nothing else waits', () => {
    const log: string[] = [];
    const scheduler = new TokenFlushScheduler(10);
    const a = recorder(log, 'a');
    const b = recorder(log, 'b');
    scheduler.schedule(a);
    scheduler.schedule(b);
    scheduler.cancel(a);
    jest.advanceTimersByTime(10);
    expect(log).toEqual(['b']);
    scheduler.schedule(a);
    scheduler.cancel(a);
    expect(jest.getTimerCount()).toBe(0);
  });
});
