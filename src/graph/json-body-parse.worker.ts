import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerThreadEntry } from './worker-thread.entry';
import { Logger } from '../observability/logger';
import { JsonBodyParseReply, JsonBodyParseRequest, JsonBodyParseThreadData } from './json-body-parse.messages';
import { ParsedJsonBody, parseJsonBodyBytes } from '../validation/json-body.text-parser';

/** The thread stops after this long without a body, giving its memory back. */
export const JSON_BODY_PARSE_WORKER_IDLE_MS = 60_000;
/** Characters of JSON text per piece parsed on the event loop: about 2-4 ms of JSON.parse. */
export const JSON_BODY_PIECE_CHARS = 256 * 1024;

const logger = new Logger('http');

export interface JsonBodyParseWorkerOptions {
  idleMs?: number;
  pieceChars?: number;
  /** Node options of the thread (default: the process's own, so a TypeScript loader given with --require carries over). */
  execArgv?: string[];
}

interface Receiving {
  onReply: (reply: JsonBodyParseReply) => void;
  fail: (error: Error) => void;
}

/**
 * Parses large request bodies in a worker thread (json-body-parse.thread.ts): JSON.parse of a 20 MB
 * graph import takes a quarter of a second, during which the event loop would answer nothing. The
 * thread parses and checks the body (parseJsonBodyBytes), then sends it back as JSON text in pieces
 * of JSON_BODY_PIECE_CHARS, asked one at a time: the event loop parses each piece as its own task
 * (a few ms), other requests in between. The result is the value JSON.parse gives. One thread,
 * started on the first body, stopped after `idleMs` without one. When the thread cannot start or
 * fails, bodies are parsed on the calling thread (the same result, in one piece).
 */
export class JsonBodyParseWorker {
  private worker: Worker | null = null;
  private readonly receiving = new Map<number, Receiving>();
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly idleMs: number;
  private readonly pieceChars: number;
  private readonly available: boolean;

  constructor(private readonly options: JsonBodyParseWorkerOptions = {}) {
    this.idleMs = options.idleMs ?? JSON_BODY_PARSE_WORKER_IDLE_MS;
    this.pieceChars = options.pieceChars ?? JSON_BODY_PIECE_CHARS;
    this.available =
      workerThreadEntry(
        __dirname,
        'json-body-parse.thread',
        path.extname(__filename),
        options.execArgv !== undefined,
      ) !== null;
  }

  /** A thread is running. */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Parses a body's bytes (taken: they may be transferred to the thread, leaving `bytes` empty). */
  async parse(bytes: Uint8Array): Promise<ParsedJsonBody> {
    if (!this.available) return parseJsonBodyBytes(bytes);
    let worker: Worker;
    try {
      worker = this.worker ?? this.start();
    } catch (error) {
      logger.warn('json_body_parse_worker_failed', { error: describe(error) });
      return parseJsonBodyBytes(bytes);
    }
    this.cancelIdleStop();
    const id = ++this.nextId;
    // A buffer of its own (not a slice of a pool or of a larger buffer) moves to the thread without a copy.
    const owned = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength;
    const sent = owned ? bytes : new Uint8Array(bytes);
    const kept = owned ? null : bytes;
    try {
      return await this.receive(worker, id, sent);
    } catch (error) {
      if (kept === null) throw error;
      // The thread failed: the bytes are still here when they were copied.
      logger.warn('json_body_parse_worker_failed', { error: describe(error) });
      return parseJsonBodyBytes(kept);
    } finally {
      this.receiving.delete(id);
      if (this.receiving.size === 0) this.scheduleIdleStop();
    }
  }

  /** Stops the thread now; bodies being parsed fail. */
  async stop(): Promise<void> {
    this.cancelIdleStop();
    const worker = this.worker;
    this.worker = null;
    const waiting = [...this.receiving.values()];
    this.receiving.clear();
    if (worker) await worker.terminate();
    for (const entry of waiting) entry.fail(new Error('json body parse worker stopped'));
  }

  private receive(worker: Worker, id: number, bytes: Uint8Array): Promise<ParsedJsonBody> {
    return new Promise((resolve, reject) => {
      let value: unknown;
      let slots: Array<string | null> = [];
      const ask = (request: JsonBodyParseRequest, transfer: ArrayBuffer[] = []) =>
        worker.postMessage(request, transfer);
      const onReply = (reply: JsonBodyParseReply): void => {
        try {
          switch (reply.kind) {
            case 'malformed':
              return resolve({ malformed: true });
            case 'problem':
              return resolve({ problem: reply.problem });
            case 'error':
              return reject(new Error(reply.error));
            case 'shell':
              value = JSON.parse(reply.text);
              slots = reply.slots;
              if (slots.length === 0) return resolve({ value });
              return ask({ id, kind: 'next' });
            case 'items': {
              const slot = slots[reply.slot];
              const target = (slot === null ? value : (value as Record<string, unknown>)[slot]) as unknown[];
              for (const item of JSON.parse(reply.text) as unknown[]) target.push(item);
              if (reply.last) return resolve({ value });
              return ask({ id, kind: 'next' });
            }
          }
        } catch (error) {
          ask({ id, kind: 'drop' });
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      };
      this.receiving.set(id, { onReply, fail: reject });
      ask({ id, kind: 'parse', bytes }, [bytes.buffer as ArrayBuffer]);
    });
  }

  private start(): Worker {
    const entry = workerThreadEntry(
      __dirname,
      'json-body-parse.thread',
      path.extname(__filename),
      this.options.execArgv !== undefined,
    );
    if (!entry) throw new Error('The JSON body parse thread cannot start in this runtime');
    const worker = new Worker(entry, {
      workerData: { pieceChars: this.pieceChars } satisfies JsonBodyParseThreadData,
      ...(this.options.execArgv ? { execArgv: this.options.execArgv } : {}),
    });
    // Never keeps the process alive on its own: the request being parsed holds its connection open.
    worker.unref();
    worker.on('message', (reply: JsonBodyParseReply) => this.receiving.get(reply.id)?.onReply(reply));
    const ended = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.cancelIdleStop();
      const waiting = [...this.receiving.values()];
      this.receiving.clear();
      for (const entry of waiting) entry.fail(error);
    };
    worker.on('error', ended);
    worker.on('exit', (code) => ended(new Error(`json body parse worker exited with code ${code}`)));
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
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
