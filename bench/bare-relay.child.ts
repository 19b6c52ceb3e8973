/**
 * The baselines of the service-vs-bare bench: the official openai SDK relaying its stream over the shared Socket.IO
 * contract (relay-socket.server.ts), in a process of its own as the service is in its own. On `ai:chat` it sends the
 * service's own request (relay-workload.ts); when the model asks for tools it runs the trivial local tool and makes a
 * second upstream call (the tool round).
 *
 * Two shapes:
 * - `user`: the relay as a user writes it: the openai SDK as shipped (its own HTTP path: Node's fetch and its
 *   SSE splitter) and one `ai:token` per content delta;
 * - `same-shape`: the same relay with the service's transport: its fetch on undici's `request` with the event
 *   stream handed over in pieces (src/providers/undici-request.fetch.ts, as the service's OpenAI-compatible
 *   provider configures it) and its token coalescing (one `ai:token` per 10 ms or 4,096 characters through the
 *   gateway's TokenFlushScheduler, text flushed before any other event). What the service adds beyond it is
 *   its own work.
 */
import OpenAI from 'openai';
import { TokenFlushScheduler } from '../src/ai/socket/token-flush.scheduler';
import { EVENT_STREAM_PIECE_BYTES, undiciRequestFetch } from '../src/providers/undici-request.fetch';
import { Relay, RelayStart, serveRelayChild } from './relay-socket.server';
import { coalesced, FLUSH_INTERVAL_MS } from './relay-token.output';
import { trivialToolResult, withQuestion } from './relay-workload';

export type BareRelayShape = 'user' | 'same-shape';

interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

function openAiSdkRelay({ baseURL, template, shape }: RelayStart): Relay {
  // Retries as the SDK does by default (a keep-alive connection the server is closing answers ECONNRESET).
  const client =
    shape === 'same-shape'
      ? new OpenAI({
          apiKey: 'bench',
          baseURL,
          fetch: undiciRequestFetch({ eventStreamPieceBytes: EVENT_STREAM_PIECE_BYTES }),
        })
      : new OpenAI({ apiKey: 'bench', baseURL });
  const scheduler = new TokenFlushScheduler(FLUSH_INTERVAL_MS);
  return {
    ...(shape === 'same-shape' ? { tokenOutput: (socket, id) => coalesced(socket, id, scheduler) } : {}),
    async converse({ question }, events) {
      let fullText = '';
      const messages = withQuestion(template.messages, question);
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
            events.token(delta.content);
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
          events.toolStart(tool.id, tool.name);
          const result = trivialToolResult(tool.name, tool.arguments);
          events.toolResult(tool.id, result);
          messages.push({ role: 'tool', tool_call_id: tool.id, content: result });
        }
      }
      return fullText;
    },
  };
}

serveRelayChild(openAiSdkRelay);
