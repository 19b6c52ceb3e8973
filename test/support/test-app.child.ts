/**
 * Another service process for multi-instance tests and benches: boots the real app with
 * startTestApp (the environment comes over IPC; give DATA_DIR to share a store), reports its URL,
 * answers 'stats' (memory, event-loop delay) and closes (keeping the data) on 'close'. The optional
 * first argument is a setup module (TestAppProcessOptions.setupModule): its `beforeListen(app)` runs
 * before the app listens; other messages are its own. See TestAppProcess.
 */
import type { INestApplication } from '@nestjs/common';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { applyHeapGrowth } from '../../src/config/heap-growth';
import { startTestApp } from './test-app';

export interface TestAppProcessStats {
  rss: number;
  heapUsed: number;
  /** ArrayBuffers and Buffers outside the V8 heap (e.g. deflated idle threads). */
  external: number;
  /** Whether a full GC ran first (the child was started with --expose-gc). */
  afterGc: boolean;
  /** Event-loop delay since the previous stats call (not counting that call's own GC), ms. */
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  /** CPU time (user + system, all threads) since the previous stats call, not counting that call's own GC, ms. */
  cpuMs: number;
}

const DELAY_RESOLUTION_MS = 10;
const eventLoopDelay = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
eventLoopDelay.enable();
let cpuAfterPreviousGc = process.cpuUsage();

async function stats(): Promise<TestAppProcessStats> {
  // Read before the forced GC, whose pause (hundreds of ms with 1,000 sockets) is not the app's.
  const eventLoopDelayP99Ms = eventLoopDelay.percentile(99) / 1e6;
  const eventLoopDelayMaxMs = eventLoopDelay.max / 1e6;
  const cpu = process.cpuUsage(cpuAfterPreviousGc);
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let pass = 0; gc && pass < 3; pass += 1) gc();
  const memory = process.memoryUsage();
  cpuAfterPreviousGc = process.cpuUsage();
  // The histogram records the GC pause at its next tick: let it, then start the next window.
  await sleep(3 * DELAY_RESOLUTION_MS);
  eventLoopDelay.reset();
  return {
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    external: memory.external,
    afterGc: gc !== undefined,
    eventLoopDelayP99Ms,
    eventLoopDelayMaxMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

interface SetupModule {
  beforeListen?: (app: INestApplication) => void;
}

process.once('message', (env: Record<string, string>) => {
  void (async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a module named at run time, loaded synchronously
    const setupModule = process.argv[2] ? (require(process.argv[2]) as SetupModule) : {};
    const app = await startTestApp(env, { beforeListen: setupModule.beforeListen });
    // A serving process, as main.ts: the heap's growth capped the same way.
    applyHeapGrowth(app.config.server.heapGrowingPercent);
    process.on('message', (message: unknown) => {
      if (message === 'stats') void stats().then((result) => process.send?.({ stats: result }));
      else if (message === 'close') void app.close({ keepData: true }).then(() => process.exit(0));
    });
    process.send?.({ url: app.url });
  })().catch((error: unknown) => {
    process.send?.({ error: error instanceof Error ? error.stack : String(error) });
    process.exit(1);
  });
});
