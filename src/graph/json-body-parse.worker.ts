import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerThreadEntry } from './worker-thread.entry';
import { WorkerThreadExchange, WorkerThreadHost } from '../worker-threads/worker-thread.host';
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
  private readonly host: WorkerThreadHost;
  private readonly available: boolean;

  constructor(options: JsonBodyParseWorkerOptions = {}) {
    const { execArgv } = options;
    const pieceChars = options.pieceChars ?? JSON_BODY_PIECE_CHARS;
    const entry = () =>
      workerThreadEntry(__dirname, 'json-body-parse.thread', path.extname(__filename), execArgv !== undefined);
    this.available = entry() !== null;
    this.host = new WorkerThreadHost({
      name: 'json body parse worker',
      idleMs: options.idleMs ?? JSON_BODY_PARSE_WORKER_IDLE_MS,
      create: () => {
        const script = entry();
        if (!script) throw new Error('The JSON body parse thread cannot start in this runtime');
        return new Worker(script, {
          workerData: { pieceChars } satisfies JsonBodyParseThreadData,
          ...(execArgv ? { execArgv } : {}),
        });
      },
    });
  }

  /** A thread is running. */
  get running(): boolean {
    return this.host.running;
  }

  /** Parses a body's bytes (taken: they may be transferred to the thread, leaving `bytes` empty). */
  async parse(bytes: Uint8Array): Promise<ParsedJsonBody> {
    if (!this.available) return parseJsonBodyBytes(bytes);
    // A buffer of its own (not a slice of a pool or of a larger buffer) moves to the thread without a copy.
    const owned = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength;
    const sent = owned ? bytes : new Uint8Array(bytes);
    const kept = owned ? null : bytes;
    let parsed: Promise<ParsedJsonBody>;
    try {
      parsed = this.host.exchange(
        (id) => ({ id, kind: 'parse', bytes: sent }) satisfies JsonBodyParseRequest,
        bodyReceiver(),
        [sent.buffer as ArrayBuffer],
      );
    } catch (error) {
      logger.warn('json_body_parse_worker_failed', { error: describe(error) });
      return parseJsonBodyBytes(bytes);
    }
    try {
      return await parsed;
    } catch (error) {
      if (kept === null) throw error;
      // The thread failed: the bytes are still here when they were copied.
      logger.warn('json_body_parse_worker_failed', { error: describe(error) });
      return parseJsonBodyBytes(kept);
    }
  }

  /** Stops the thread now; bodies being parsed fail. */
  stop(): Promise<void> {
    return this.host.stop();
  }
}

/** Puts one body back together from the thread's replies, asking for each next piece. */
function bodyReceiver(): (reply: JsonBodyParseReply, exchange: WorkerThreadExchange<ParsedJsonBody>) => void {
  let value: unknown;
  let slots: Array<string | null> = [];
  return (reply, { id, post, resolve, reject }) => {
    const ask = (request: JsonBodyParseRequest) => post(request);
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
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
