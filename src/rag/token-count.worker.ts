import { Worker } from 'node:worker_threads';

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

interface Pending {
  resolve: (count: number) => void;
  reject: (error: Error) => void;
}

/**
 * o200k_base token counts for the service (POST /api/rag/context), off its event loop and out of its
 * heap: the encoder's ranks take ~20 MB of heap (~100 MB of RSS while they load) and 0.3-2 s to load,
 * which the service no longer pays at start nor keeps while it streams. The worker thread starts on
 * the first count (that call waits for the load; the event loop does not) and stops after `idleMs`
 * without one. Counts are TokenCounter's (same encoder, same call). Pure: no Nest.
 */
export class TokenCountWorker {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly idleMs = TOKEN_COUNT_WORKER_IDLE_MS) {}

  /** A worker thread is running (loaded or loading). */
  get running(): boolean {
    return this.worker !== null;
  }

  count(text: string): Promise<number> {
    if (!text) return Promise.resolve(0);
    const worker = this.worker ?? this.start();
    this.cancelIdleStop();
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, text });
    });
  }

  /** Nest calls it at shutdown (the provider instance has the hook). */
  onModuleDestroy(): Promise<void> {
    return this.stop();
  }

  /** Stops the worker now; counts still waiting fail. */
  async stop(): Promise<void> {
    this.cancelIdleStop();
    const worker = this.worker;
    this.worker = null;
    // Taken now: a count asked while this one terminates goes to the next worker.
    const waiting = this.takePending();
    if (worker) await worker.terminate();
    for (const entry of waiting) entry.reject(new Error('token count worker stopped'));
  }

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { encoding: require.resolve('gpt-tokenizer/encoding/o200k_base') },
    });
    // Never keeps the process alive on its own: a count in flight holds the caller's request open anyway.
    worker.unref();
    worker.on('message', (message: { id: number; count?: number; error?: string }) => {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error !== undefined) waiting?.reject(new Error(message.error));
      else waiting?.resolve(message.count as number);
      if (this.pending.size === 0) this.scheduleIdleStop();
    });
    const ended = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.cancelIdleStop();
      for (const entry of this.takePending()) entry.reject(error);
    };
    worker.on('error', ended);
    worker.on('exit', (code) => ended(new Error(`token count worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private scheduleIdleStop(): void {
    this.cancelIdleStop();
    this.idleTimer = setTimeout(() => void this.stop(), this.idleMs);
    this.idleTimer.unref();
  }

  private cancelIdleStop(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private takePending(): Pending[] {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    return waiting;
  }
}
