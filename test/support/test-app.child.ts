/**
 * Another service process for multi-instance tests and benches: boots the real app with
 * startTestApp (the environment comes over IPC; give DATA_DIR to share a store), reports its URL,
 * answers 'stats' (memory, event-loop delay) and closes (keeping the data) on 'close'. See
 * TestAppProcess.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestApp } from './test-app';

export interface TestAppProcessStats {
  rss: number;
  heapUsed: number;
  /** ArrayBuffers and Buffers outside the V8 heap (e.g. deflated idle threads). */
  external: number;
  /** Whether a full GC ran first (the child was started with --expose-gc). */
  afterGc: boolean;
  /** Event-loop delay since the previous stats call, ms. */
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
}

const eventLoopDelay = monitorEventLoopDelay({ resolution: 10 });
eventLoopDelay.enable();

function stats(): TestAppProcessStats {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let pass = 0; gc && pass < 3; pass += 1) gc();
  const memory = process.memoryUsage();
  const result = {
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    external: memory.external,
    afterGc: gc !== undefined,
    eventLoopDelayP99Ms: eventLoopDelay.percentile(99) / 1e6,
    eventLoopDelayMaxMs: eventLoopDelay.max / 1e6,
  };
  eventLoopDelay.reset();
  return result;
}

process.once('message', (env: Record<string, string>) => {
  void (async () => {
    const app = await startTestApp(env);
    process.on('message', (message: unknown) => {
      if (message === 'stats') process.send?.({ stats: stats() });
      else void app.close({ keepData: true }).then(() => process.exit(0));
    });
    process.send?.({ url: app.url });
  })().catch((error: unknown) => {
    process.send?.({ error: error instanceof Error ? error.stack : String(error) });
    process.exit(1);
  });
});
