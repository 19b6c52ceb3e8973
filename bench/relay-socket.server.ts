import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Server, Socket } from 'socket.io';
import { ProcessWindowProbe } from './process-window.probe';
import { perDelta, TokenOutput } from './relay-token.output';
import type { RelayTemplate } from './relay-workload';

/**
 * The part every relay of the service-vs-bare bench shares, in the relay's own child process: a Socket.IO server
 * on namespace `/ai` speaking the service's contract with nothing else (no validation, thread, retrieval, store,
 * lease or admission). On `ai:chat` `{ _id, message }` the relay runs one new conversation; its text goes out as
 * `ai:token` (one per delta unless the relay coalesces), its tool round as `ai:tool_start` / `ai:tool_result` (text
 * flushed first), then `ai:complete` with the full text as the relay knows it, or `ai:error`.
 *
 * IPC: `{ baseURL, template, shape }` → `{ url }` once listening; `{ stats: true }` → `{ stats }` (CPU and
 * event-loop delay since the previous one, ProcessWindowProbe); `{ exit: true }` ends the process.
 */

export interface RelayStart {
  /** The OpenAI-compatible server (ending in /v1). */
  baseURL: string;
  template: RelayTemplate;
  /** A variant of the relay, for a child that has several. */
  shape?: string;
}

export interface RelayConversation {
  id: number;
  /** New for every `ai:chat`: each is a conversation of its own. */
  threadId: string;
  question: string;
}

/** What a relay reports while it runs a conversation; the server turns it into the contract's events. */
export interface RelayEvents {
  token(text: string): void;
  toolStart(toolCallId: string, toolName: string): void;
  toolResult(toolCallId: string, result: string): void;
}

export interface Relay {
  /** Runs one conversation; resolves with the answer's full text. */
  converse(conversation: RelayConversation, events: RelayEvents): Promise<string>;
  /** How text reaches the socket; default one `ai:token` per `token()`. */
  tokenOutput?(socket: Socket, id: number): TokenOutput;
}

function serve(relay: Relay): Promise<string> {
  const http = createServer();
  const io = new Server(http, { transports: ['websocket', 'polling'] });
  io.of('/ai').on('connection', (socket) => {
    socket.on('ai:chat', async (message: { _id: number; message: string }) => {
      const id = message._id;
      const output = relay.tokenOutput?.(socket, id) ?? perDelta(socket, id);
      const events: RelayEvents = {
        token: (text) => output.token(text),
        toolStart: (toolCallId, toolName) => {
          output.flush();
          socket.emit('ai:tool_start', { _id: id, toolCallId, toolName });
        },
        toolResult: (toolCallId, result) => {
          output.flush();
          socket.emit('ai:tool_result', { _id: id, toolCallId, result });
        },
      };
      try {
        const fullText = await relay.converse(
          { id, threadId: `${socket.id}:${id}`, question: message.message },
          events,
        );
        output.flush();
        socket.emit('ai:complete', { _id: id, fullText });
      } catch (error) {
        output.flush();
        socket.emit('ai:error', { _id: id, code: 'internal', error: String(error) });
      }
    });
  });
  return new Promise((resolve) =>
    http.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(http.address() as AddressInfo).port}`)),
  );
}

/** Makes this process a relay child: `createRelay` is called once with the start message. */
export function serveRelayChild(createRelay: (start: RelayStart) => Relay): void {
  const probe = new ProcessWindowProbe();
  process.on('message', (message: Partial<RelayStart> & { stats?: boolean; exit?: boolean }) => {
    if (message.baseURL && message.template) {
      const start: RelayStart = { baseURL: message.baseURL, template: message.template, shape: message.shape };
      void Promise.resolve()
        .then(() => serve(createRelay(start)))
        .then(
          (url) => process.send?.({ url }),
          (error: unknown) => process.send?.({ error: String(error) }),
        );
    } else if (message.stats) {
      process.send?.({ stats: probe.read() });
    } else if (message.exit) {
      process.exit(0);
    }
  });
}
