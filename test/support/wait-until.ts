import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `check` every 10 ms until it holds; rejects after `timeoutMs` (state reached through another connection or process). */
export async function waitUntil(check: () => boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}
