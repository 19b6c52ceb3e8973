/**
 * The receivers of the service-vs-bare bench, in a process of their own (as real clients: their event
 * loop is neither the service's nor the fake LLM server's). socket.io-client sockets on `/ai` of each
 * target; for a round, `streams` of them send one `ai:chat` each at the same moment (or one socket
 * sends `sequential` conversations one after the other), and every token is checked: the `ai:token`
 * texts of a request must add up to the expected answer, `fullText` must equal them, and exactly one
 * terminal event may arrive (anything for a request after its terminal event is an error).
 * Times are monotonicMs() (comparable with the bench process's).
 *
 * IPC: `{ connect: { target, url, count } }` → `{ connected: target }`;
 *      `{ round: RoundRequest }` → `{ round: RoundRecord }`.
 */
import { io, Socket } from 'socket.io-client';
import { monotonicMs } from './monotonic-clock';

export interface RoundRequest {
  target: string;
  /** First `_id` of the round; each conversation has its own (firstId + index). */
  firstId: number;
  /** Sockets asking at once. */
  streams: number;
  /** Conversations each socket runs one after the other (default 1). */
  sequential?: number;
  graphKey: string;
  question: string;
  /** The text every conversation must receive. */
  expected: string;
  timeoutMs: number;
}

/** One entry per conversation, in the order of their emits. */
export interface RoundRecord {
  emits: number[];
  firstTokens: number[];
  ends: number[];
  /** ai:token events received. */
  tokenEvents: number;
  errors: string[];
}

interface Pending {
  text: string;
  firstToken: number;
  resolve: (end: number) => void;
  reject: (error: Error) => void;
}

const pools = new Map<string, Socket[]>();
const pending = new Map<string, Pending>();
/** Requests whose terminal event arrived: anything more for them is a protocol error. */
const finished = new Set<string>();
let lateEvents: string[] = [];
let tokenEvents = 0;

function listen(socket: Socket): void {
  socket.onAny(
    (event: string, payload: { _id?: number; token?: string; fullText?: string; code?: string; error?: string }) => {
      const key = `${socket.id}:${payload?._id}`;
      if (finished.has(key)) {
        lateEvents.push(`${event} after the terminal event of _id ${payload._id}`);
        return;
      }
      const request = pending.get(key);
      if (!request) return;
      if (event === 'ai:token') {
        tokenEvents += 1;
        if (request.text.length === 0) request.firstToken = monotonicMs();
        request.text += payload.token ?? '';
      } else if (event === 'ai:complete' || event === 'ai:error') {
        const end = monotonicMs();
        pending.delete(key);
        finished.add(key);
        if (event === 'ai:error') request.reject(new Error(`ai:error ${payload.code}: ${payload.error}`));
        else if (payload.fullText !== request.text)
          request.reject(
            new Error(`fullText (${payload.fullText?.length} chars) is not the tokens (${request.text.length} chars)`),
          );
        else request.resolve(end);
      }
    },
  );
}

async function connect(url: string): Promise<Socket> {
  const socket = io(`${url}/ai`, { transports: ['websocket'], reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  listen(socket);
  return socket;
}

/** One conversation: emit, then the recorded times once its terminal event has come. */
function converse(
  socket: Socket,
  id: number,
  round: RoundRequest,
): { emitted: number; done: Promise<{ firstToken: number; end: number; text: string }> } {
  const key = `${socket.id}:${id}`;
  let request!: Pending;
  const done = new Promise<number>((resolve, reject) => {
    request = { text: '', firstToken: Number.NaN, resolve, reject };
  });
  pending.set(key, request);
  const timer = setTimeout(
    () => request.reject(new Error(`no terminal event within ${round.timeoutMs} ms`)),
    round.timeoutMs,
  );
  const emitted = monotonicMs();
  socket.emit('ai:chat', { _id: id, graphKey: round.graphKey, message: round.question });
  return {
    emitted,
    done: done
      .then((end) => ({ firstToken: request.firstToken, end, text: request.text }))
      .finally(() => {
        clearTimeout(timer);
        pending.delete(key);
      }),
  };
}

async function runRound(round: RoundRequest): Promise<RoundRecord> {
  const sockets = (pools.get(round.target) ?? []).slice(0, round.streams);
  if (sockets.length < round.streams)
    throw new Error(`${round.target}: ${sockets.length} sockets for ${round.streams} streams`);
  const record: RoundRecord = { emits: [], firstTokens: [], ends: [], tokenEvents: 0, errors: [] };
  tokenEvents = 0;
  const sequential = round.sequential ?? 1;
  let nextId = round.firstId;
  const outcomes: Array<Promise<void>> = [];
  const note = (index: number, done: Promise<{ firstToken: number; end: number; text: string }>) =>
    done.then(
      ({ firstToken, end, text }) => {
        if (text !== round.expected) record.errors.push(`wrong text (${text.length} chars)`);
        record.firstTokens[index] = firstToken;
        record.ends[index] = end;
      },
      (error: Error) => {
        record.errors.push(error.message);
        record.firstTokens[index] = Number.NaN;
        record.ends[index] = Number.NaN;
      },
    );
  if (sequential > 1) {
    for (let index = 0; index < sequential; index++) {
      const conversation = converse(sockets[0], nextId++, round);
      record.emits.push(conversation.emitted);
      await note(index, conversation.done);
    }
  } else {
    // All at once: the emits of a burst are as close together as one loop makes them.
    for (const socket of sockets) {
      const conversation = converse(socket, nextId++, round);
      outcomes.push(note(record.emits.length, conversation.done));
      record.emits.push(conversation.emitted);
    }
    await Promise.all(outcomes);
  }
  record.tokenEvents = tokenEvents;
  record.errors.push(...lateEvents);
  lateEvents = [];
  return record;
}

process.on('message', (message: { connect?: { target: string; url: string; count: number }; round?: RoundRequest }) => {
  void (async () => {
    if (message.connect) {
      const { target, url, count } = message.connect;
      const sockets = pools.get(target) ?? [];
      // In batches: a thousand handshakes at once only queue up behind each other.
      while (sockets.length < count) {
        sockets.push(
          ...(await Promise.all(Array.from({ length: Math.min(100, count - sockets.length) }, () => connect(url)))),
        );
      }
      pools.set(target, sockets);
      process.send?.({ connected: target });
    } else if (message.round) {
      try {
        process.send?.({ round: await runRound(message.round) });
      } catch (error) {
        process.send?.({ error: String(error) });
      }
    }
  })();
});

process.on('disconnect', () => {
  for (const sockets of pools.values()) for (const socket of sockets) socket.close();
  process.exit(0);
});
