/**
 * The AI SDK's relay for the service-vs-bare bench, as its documentation writes one: the OpenAI provider's chat
 * model (`@ai-sdk/openai`, Chat Completions, as the service calls the server), `streamText` with the template's
 * system messages as `system`, its tools defined with `tool()` (their JSON schemas through `jsonSchema()`, each
 * running the trivial local tool) and a step limit of two (at most one tool round), one `ai:token` per text delta
 * of `fullStream`, over the shared Socket.IO contract (relay-socket.server.ts).
 */
import { createOpenAI } from '@ai-sdk/openai';
import {
  jsonSchema,
  type JSONSchema7,
  type ModelMessage,
  stepCountIs,
  streamText,
  type SystemModelMessage,
  tool,
  type ToolSet,
} from 'ai';
import { Relay, RelayStart, serveRelayChild } from './relay-socket.server';
import { functionToolsOf, instructionsOf, RelayTemplate, trivialToolResult } from './relay-workload';

/** The template's instructions as the AI SDK takes them: its system messages apart, then the earlier turns. */
function instructionsFor(template: RelayTemplate): { system: SystemModelMessage[]; history: ModelMessage[] } {
  const system: SystemModelMessage[] = [];
  const history: ModelMessage[] = [];
  for (const message of instructionsOf(template.messages)) {
    const text =
      typeof message.content === 'string'
        ? message.content
        : (message.content ?? []).map((part) => ('text' in part ? part.text : '')).join('');
    if (message.role === 'system' || message.role === 'developer') system.push({ role: 'system', content: text });
    else if (message.role === 'user') history.push({ role: 'user', content: text });
    else if (message.role === 'assistant') history.push({ role: 'assistant', content: text });
  }
  return { system, history };
}

function aiSdkRelay({ baseURL, template }: RelayStart): Relay {
  const model = createOpenAI({ apiKey: 'bench', baseURL }).chat(template.model);
  const tools: ToolSet = Object.fromEntries(
    functionToolsOf(template).map((definition) => [
      definition.name,
      tool({
        description: definition.description,
        inputSchema: jsonSchema(definition.parameters as JSONSchema7),
        execute: async (input: unknown) => trivialToolResult(definition.name, JSON.stringify(input)),
      }),
    ]),
  );
  const { system, history } = instructionsFor(template);
  return {
    async converse({ question }, events) {
      const result = streamText({
        model,
        system,
        messages: [...history, { role: 'user', content: question }],
        tools,
        stopWhen: stepCountIs(2),
      });
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') events.token(part.text);
        else if (part.type === 'tool-call') events.toolStart(part.toolCallId, part.toolName);
        else if (part.type === 'tool-result') events.toolResult(part.toolCallId, String(part.output));
        else if (part.type === 'error') throw part.error;
      }
      return await result.text;
    },
  };
}

serveRelayChild(aiSdkRelay);
