import { UpstreamCallPacer } from './upstream-call.pacer';

describe(UpstreamCallPacer.name, () => {
  it('lets the first call go at once and spaces the next ones by the interval', async () => {
    const pacer = new UpstreamCallPacer(40);
    const started = Date.now();
    await pacer.wait();
    expect(Date.now() - started).toBeLessThan(30);
    await pacer.wait();
    await pacer.wait();
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
  });

  it('never waits with an interval of 0, and stops waiting when aborted', async () => {
    const free = new UpstreamCallPacer(0);
    await Promise.all([free.wait(), free.wait(), free.wait()]);
    const slow = new UpstreamCallPacer(60_000);
    await slow.wait();
    const controller = new AbortController();
    const waiting = slow.wait(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
  });
});
