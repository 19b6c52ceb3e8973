/**
 * The bare relay of the service-vs-bare bench, in a process of its own as the service is in its own:
 * the official openai SDK streaming into Socket.IO, with nothing else. Namespace `/ai`; on `ai:chat`
 * it sends the service's own request (the messages and tools the bench captured from the service,
 * the conversation's question as the last user message), emits one `ai:token` per text delta, runs
 * a trivial local tool and makes a second upstream call when the model asks for tools (the tool
 * round: `ai:tool_start` / `ai:tool_result` as the service sends them), then `ai:complete` with the
 * full text. No validation, thread, retrieval, store, lease, coalescing or admission.
 *
 * IPC: `{ baseURL, template }` → `{ url }` once listening; `{ stats: true }` → `{ stats }` (CPU and
 * event-loop delay since the previous one, ProcessWindowProbe); `{ exit: true }` ends the process.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions/completions';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { ProcessWindowProbe } from './process-window.probe';

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

const probe = new ProcessWindowProbe();

/** The trivial local tool: answers every call at once. */
function runTool(call: ToolCall): string {
  return JSON.stringify({ tool: call.name, arguments: call.arguments, result: 'ok' });
}

function withQuestion(messages: ChatCompletionMessageParam[], question: string): ChatCompletionMessageParam[] {
  const last = messages.map((message) => message.role).lastIndexOf('user');
  return messages.map((message, index) => (index === last ? { role: 'user', content: question } : message));
}

async function start(baseURL: string, template: BareRelayTemplate): Promise<string> {
  // Retries as the service's provider does (a keep-alive connection the server is closing answers ECONNRESET).
  const client = new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 2 });
  const http = createServer();
  const io = new Server(http, { transports: ['websocket', 'polling'] });
  io.of('/ai').on('connection', (socket) => {
    socket.on('ai:chat', async (message: { _id: number; message: string }) => {
      const id = message._id;
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
              socket.emit('ai:token', { _id: id, token: delta.content });
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
          for (const tool of calls) {
            socket.emit('ai:tool_start', { _id: id, toolCallId: tool.id, toolName: tool.name });
            const result = runTool(tool);
            socket.emit('ai:tool_result', { _id: id, toolCallId: tool.id, result });
            messages.push({ role: 'tool', tool_call_id: tool.id, content: result });
          }
        }
        socket.emit('ai:complete', { _id: id, fullText });
      } catch (error) {
        socket.emit('ai:error', { _id: id, code: 'internal', error: String(error) });
      }
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

process.on(
  'message',
  (message: { baseURL?: string; template?: BareRelayTemplate; stats?: boolean; exit?: boolean }) => {
    if (message.baseURL && message.template) {
      void start(message.baseURL, message.template).then(
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
