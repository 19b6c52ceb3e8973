import { setTimeout as sleep } from 'node:timers/promises';
import { StreamIdleTimeoutError } from './stream-idle-timeout.error';
import { UpstreamStreamGuard } from './upstream-stream.guard';

describe(UpstreamStreamGuard.name, () => {
  it('cuts a stream the upstream left silent for longer than the idle timeout', async () => {
    const guard = new UpstreamStreamGuard('openai', undefined, 30);
    await sleep(80);
    expect(guard.signal.aborted).toBe(true);
    expect(() => guard.throwIfCut()).toThrow(StreamIdleTimeoutError);
    guard.dispose();
  });

  it('does not count the time the consumer holds a chunk as the upstream being silent', async () => {
    const guard = new UpstreamStreamGuard('openai', undefined, 30);
    guard.hold(true);
    await sleep(100);
    expect(guard.signal.aborted).toBe(false);
    guard.hold(false);
    guard.touch();
    await sleep(80);
    expect(guard.signal.aborted).toBe(true);
    guard.dispose();
  });
});
