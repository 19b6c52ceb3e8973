import { get } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * GET /health one call after the other, `gapMs` apart, in a process of its own: what a client of
 * the service sees while the bench process itself sends a 20 MB import (its string encoding, its
 * GC) would otherwise be counted as the service's stall. Started with the service's URL and the gap;
 * on the message 'stop' it answers `{ latencies }` (ms, each call from sent to answer read) and exits.
 */

const [url, gap] = process.argv.slice(2);
const gapMs = Number(gap);
const latencies: number[] = [];
let stopping = false;
process.on('message', (message) => {
  if (message === 'stop') stopping = true;
});

function health(): Promise<void> {
  return new Promise((resolve, reject) => {
    get(new URL('/health', url), (response) => {
      response.resume();
      response.on('end', resolve);
    }).on('error', reject);
  });
}

void (async () => {
  process.send?.('started');
  while (!stopping) {
    const sent = performance.now();
    await health();
    latencies.push(performance.now() - sent);
    await sleep(gapMs);
  }
  process.send?.({ latencies }, () => process.exit(0));
})();
