import { parentPort, workerData } from 'node:worker_threads';
import { JsonBodyParseReply, JsonBodyParseRequest, JsonBodyParseThreadData } from './json-body-parse.messages';
import { parseJsonBodyBytes } from '../validation/json-body.text-parser';

/**
 * The body parser's thread (started by JsonBodyParseWorker): parses a request body's bytes
 * (parseJsonBodyBytes: JSON.parse and the shape check, a quarter of a second for 20 MB) and hands the
 * value back as text in pieces (see JsonBodyParseReply), one piece per `next`, so the event loop
 * parses each piece between other work instead of the whole body in one piece.
 */
const port = parentPort;
if (!port) throw new Error('json-body-parse.thread runs in a worker thread');
const { pieceChars } = workerData as JsonBodyParseThreadData;

/** A parsed body being sent: its arrays cut out of the shell, and where the next piece starts. */
interface Sending {
  arrays: unknown[][];
  slot: number;
  item: number;
}

const sending = new Map<number, Sending>();
const send = (reply: JsonBodyParseReply) => port.postMessage(reply);

port.on('message', (request: JsonBodyParseRequest) => {
  try {
    if (request.kind === 'parse') parse(request.id, request.bytes);
    else if (request.kind === 'next') next(request.id);
    else sending.delete(request.id);
  } catch (error) {
    sending.delete(request.id);
    send({ id: request.id, kind: 'error', error: error instanceof Error ? error.message : String(error) });
  }
});

function parse(id: number, bytes: Uint8Array): void {
  const parsed = parseJsonBodyBytes(bytes);
  if ('malformed' in parsed) return send({ id, kind: 'malformed' });
  if ('problem' in parsed) return send({ id, kind: 'problem', problem: parsed.problem });
  const { value } = parsed;
  const slots: Array<string | null> = [];
  const arrays: unknown[][] = [];
  let shell: unknown = value;
  if (Array.isArray(value)) {
    slots.push(null);
    arrays.push(value);
    shell = [];
  } else if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      const large = Array.isArray(field) && field.length > 1;
      copy[key] = large ? [] : field;
      if (large) {
        slots.push(key);
        arrays.push(field as unknown[]);
      }
    }
    shell = copy;
  }
  send({ id, kind: 'shell', text: JSON.stringify(shell), slots });
  if (arrays.length > 0) sending.set(id, { arrays, slot: 0, item: 0 });
}

/** The next items of the body's arrays, up to pieceChars of text (at least one item). */
function next(id: number): void {
  const state = sending.get(id);
  if (!state) throw new Error(`no body ${id} being sent`);
  const slot = state.slot;
  const array = state.arrays[slot];
  const texts: string[] = [];
  let chars = 0;
  while (state.item < array.length && (texts.length === 0 || chars < pieceChars)) {
    const text = JSON.stringify(array[state.item]) ?? 'null';
    texts.push(text);
    chars += text.length + 1;
    state.item += 1;
  }
  if (state.item >= array.length) {
    state.slot += 1;
    state.item = 0;
  }
  const last = state.slot >= state.arrays.length;
  if (last) sending.delete(id);
  send({ id, kind: 'items', slot, text: `[${texts.join(',')}]`, last });
}
