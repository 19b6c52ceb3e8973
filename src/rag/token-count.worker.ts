import { Worker } from 'node:worker_threads';
import { WorkerThreadHost } from '../worker-threads/worker-thread.host';

/** The worker stops after this long without a count, giving its memory back. */
export const TOKEN_COUNT_WORKER_IDLE_MS = 60_000;

/**
 * The worker's code (plain CommonJS, so it runs the same from the sources and from dist/): the
 * o200k_base encoder, and `{ id, text }` → `{ id, count }` with the count TokenCounter.count gives.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const encoder = require(workerData.encoding);
const plainText = { disallowedSpecial: new Set() };
parentPort.on('message', ({ id, text }) => {
  try {
    parentPort.postMessage({ id, count: encoder.countTokens(text, plainText) });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

/**
 * o200k_base token counts for the service (POST /api/rag/context), off its event loop and out of its
 * heap: the encoder's ranks take ~20 MB of heap (~100 MB of RSS while they load) and 0.3-2 s to load,
 * which the service no longer pays at start nor keeps while it streams. The worker thread starts on
 * the first count (that call waits for the load; the event loop does not) and stops after `idleMs`
 * without one. Counts are TokenCounter's (same encoder, same call). Pure: no Nest.
 */
export class TokenCountWorker {
  private readonly host: WorkerThreadHost;

  constructor(idleMs = TOKEN_COUNT_WORKER_IDLE_MS) {
    this.host = new WorkerThreadHost({
      name: 'token count worker',
      idleMs,
      create: () =>
        new Worker(WORKER_SOURCE, {
          eval: true,
          workerData: { encoding: require.resolve('gpt-tokenizer/encoding/o200k_base') },
        }),
    });
  }

  /** A worker thread is running (loaded or loading). */
  get running(): boolean {
    return this.host.running;
  }

  count(text: string): Promise<number> {
    if (!text) return Promise.resolve(0);
    return this.host.request<{ id: number; count: number }>((id) => ({ id, text })).then((reply) => reply.count);
  }

  /** Nest calls it at shutdown (the provider instance has the hook). */
  onModuleDestroy(): Promise<void> {
    return this.stop();
  }

  /** Stops the worker now; counts still waiting fail. */
  stop(): Promise<void> {
    return this.host.stop();
  }
}
