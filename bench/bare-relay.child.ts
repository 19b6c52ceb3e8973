/**
 * The baselines of the service-vs-bare bench, each in a process of its own as the service is in its own:
 * a Socket.IO server on namespace `/ai` that relays the openai SDK's stream, with nothing else (no validation,
 * thread, retrieval, store, lease or admission). On `ai:chat` it sends the service's own request (the messages
 * and tools the bench captured from the service, the conversation's question as the last user message); when
 * the model asks for tools it runs a trivial local tool and makes a second upstream call (the tool round:
 * `ai:tool_start` / `ai:tool_result` as the service sends them); then `ai:complete` with the full text.
 *
 * Two shapes:
 * - `user`: the relay as a user writes it: the openai SDK as shipped (its own HTTP path: Node's fetch and its
 *   SSE splitter) and one `ai:token` per content delta;
 * - `same-shape`: the same relay with the service's transport: its fetch on undici's `request` with the event
 *   stream handed over in pieces (src/providers/undici-request.fetch.ts, as the service's OpenAI-compatible
 *   provider configures it) and its token coalescing (one `ai:token` per 10 ms or 4,096 characters through the
 *   gateway's TokenFlushScheduler, text flushed before any other event). What the service adds beyond it is
 *   its own work.
 *
 * IPC: `{ baseURL, template, shape }` → `{ url }` once listening; `{ stats: true }` → `{ stats }` (CPU and
 * event-loop delay since the previous one, ProcessWindowProbe); `{ exit: true }` ends the process.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions/completions';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Server, Socket } from 'socket.io';
import { TokenFlushScheduler } from '../src/ai/socket/token-flush.scheduler';
import { EVENT_STREAM_PIECE_BYTES, undiciRequestFetch } from '../src/providers/undici-request.fetch';
import { ProcessWindowProbe } from './process-window.probe';

export type BareRelayShape = 'user' | 'same-shape';

export interface BareRelayTemplate {
  model: string;
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
}

interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** The transports' TOKEN_FLUSH_INTERVAL_MS and TOKEN_FLUSH_MAX_CHARS (src/ai/socket/token-flush.scheduler.ts). */
const FLUSH_INTERVAL_MS = 10;
const FLUSH_MAX_CHARS = 4096;

const probe = new ProcessWindowProbe();

/** How a conversation's text reaches its socket. */
interface TokenOutput {
  token(text: string): void;
  /** Sends what is buffered (before any other event). */
  flush(): void;
}

/** One `ai:token` per delta. */
function perDelta(socket: Socket, id: number): TokenOutput {
  return { token: (text) => socket.emit('ai:token', { _id: id, token: text }), flush: () => undefined };
}

/** The service's coalescing: buffered text goes out on the shared scheduler's tick, or at once past FLUSH_MAX_CHARS. */
function coalesced(socket: Socket, id: number, scheduler: TokenFlushScheduler): TokenOutput {
  let buffer = '';
  const output = {
    token(text: string) {
      buffer += text;
      if (buffer.length >= FLUSH_MAX_CHARS) output.flush();
      else scheduler.schedule(output);
    },
    flush() {
      scheduler.cancel(output);
      if (buffer.length === 0) return;
      const text = buffer;
      buffer = '';
      socket.emit('ai:token', { _id: id, token: text });
    },
  };
  return output;
}

/** The trivial local tool: answers every call at once. */
function runTool(call: ToolCall): string {
  return JSON.stringify({ tool: call.name, arguments: call.arguments, result: 'ok' });
}

function withQuestion(messages: ChatCompletionMessageParam[], question: string): ChatCompletionMessageParam[] {
  const last = messages.map((message) => message.role).lastIndexOf('user');
  return messages.map((message, index) => (index === last ? { role: 'user', content: question } : message));
}

async function start(baseURL: string, template: BareRelayTemplate, shape: BareRelayShape): Promise<string> {
  // Retries as the SDK does by default (a keep-alive connection the server is closing answers ECONNRESET).
  const client =
    shape === 'user'
      ? new OpenAI({ apiKey: 'bench', baseURL })
      : new OpenAI({
          apiKey: 'bench',
          baseURL,
          fetch: undiciRequestFetch({ eventStreamPieceBytes: EVENT_STREAM_PIECE_BYTES }),
        });
  const scheduler = new TokenFlushScheduler(FLUSH_INTERVAL_MS);
  const http = createServer();
  const io = new Server(http, { transports: ['websocket', 'polling'] });
  io.of('/ai').on('connection', (socket) => {
    socket.on('ai:chat', async (message: { _id: number; message: string }) => {
      const id = message._id;
      const output = shape === 'user' ? perDelta(socket, id) : coalesced(socket, id, scheduler);
      let fullText = '';
      const messages = withQuestion(template.messages, message.message);
      try {
        for (let call = 0; call < 2; call++) {
          const stream = await client.chat.completions.create({
            model: template.model,
            stream: true,
            messages,
            ...(template.tools ? { tools: template.tools } : {}),
          });
          const calls: ToolCall[] = [];
          for await (const chunk of stream) {
            const delta = chunk.choices[0]?.delta;
            if (!delta) continue;
            if (delta.content) {
              fullText += delta.content;
              output.token(delta.content);
            }
            for (const part of delta.tool_calls ?? []) {
              const known = (calls[part.index] ??= { id: '', name: '', arguments: '' });
              if (part.id) known.id = part.id;
              if (part.function?.name) known.name += part.function.name;
              if (part.function?.arguments) known.arguments += part.function.arguments;
            }
          }
          if (calls.length === 0) break;
          messages.push({
            role: 'assistant',
            content: null,
            tool_calls: calls.map((tool) => ({
              id: tool.id,
              type: 'function',
              function: { name: tool.name, arguments: tool.arguments },
            })),
          });
          output.flush();
          for (const tool of calls) {
            socket.emit('ai:tool_start', { _id: id, toolCallId: tool.id, toolName: tool.name });
            const result = runTool(tool);
            socket.emit('ai:tool_result', { _id: id, toolCallId: tool.id, result });
            messages.push({ role: 'tool', tool_call_id: tool.id, content: result });
          }
        }
        output.flush();
        socket.emit('ai:complete', { _id: id, fullText });
      } catch (error) {
        output.flush();
        socket.emit('ai:error', { _id: id, code: 'internal', error: String(error) });
      }
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

process.on(
  'message',
  (message: {
    baseURL?: string;
    template?: BareRelayTemplate;
    shape?: BareRelayShape;
    stats?: boolean;
    exit?: boolean;
  }) => {
    if (message.baseURL && message.template) {
      void start(message.baseURL, message.template, message.shape ?? 'user').then(
        (url) => process.send?.({ url }),
        (error: unknown) => process.send?.({ error: String(error) }),
      );
    } else if (message.stats) {
      process.send?.({ stats: probe.read() });
    } else if (message.exit) {
      process.exit(0);
    }
  },
);
