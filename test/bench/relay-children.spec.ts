import type { ChildProcess } from 'node:child_process';
import type { RelayTemplate } from '../../bench/relay-workload';
import {
  ANSWER,
  ANSWER_TOKENS,
  GRAPH,
  QUESTION,
  startRelay,
  TargetName,
} from '../../bench/service-vs-bare-relay.bench';
import { AiSocketClient } from '../support/ai-socket.client';
import { ScriptedLlmServer } from '../support/scripted-llm-server';

/**
 * The relays of the service-vs-bare bench, each in its child process against the scripted OpenAI-compatible server
 * and a real socket.io-client: one conversation answers every token and its full text, and one with a tool round
 * runs the local tool between two upstream requests.
 */

const INSTRUCTIONS = 'You answer questions about workflow graphs.';
const TEMPLATE: RelayTemplate = {
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: INSTRUCTIONS },
    { role: 'user', content: 'replaced by each conversation' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'read_node_detail',
        description: 'Reads one node of the graph.',
        parameters: {
          type: 'object',
          properties: { nodeKey: { type: 'string' } },
          required: ['nodeKey'],
          additionalProperties: false,
        },
      },
    },
  ],
};
const RELAYS: Array<{ name: Exclude<TargetName, 'service'>; perDelta: boolean }> = [
  { name: 'bare', perDelta: true },
  { name: 'same-shape', perDelta: false },
  { name: 'ai-sdk', perDelta: true },
  { name: 'langgraph', perDelta: true },
];
// A relay child compiles its sources on start (and LangGraph loads many modules) on a shared machine.
jest.setTimeout(60_000);

let server: ScriptedLlmServer;

beforeAll(async () => {
  server = await ScriptedLlmServer.start();
});

afterAll(async () => {
  await server.close();
});

describe.each(RELAYS)('the $name relay', ({ name, perDelta }) => {
  let child: ChildProcess;
  let client: AiSocketClient;
  let nextId = 1;

  beforeAll(async () => {
    const relay = await startRelay(name, server.openAiBaseUrl, TEMPLATE);
    child = relay.child;
    client = await AiSocketClient.connect(relay.url);
  });

  afterAll(async () => {
    client?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ exit: true });
      await exited;
    }
  });

  beforeEach(() => server.reset());

  it('relays every token of a new conversation and completes with the full text', async () => {
    server.enqueue({ text: ANSWER, chunkSize: 4 });
    const recording = await client.chat({ _id: nextId++, graphKey: GRAPH, message: QUESTION }, 20_000);

    expect(recording.error).toBeUndefined();
    expect(recording.text).toBe(ANSWER);
    expect(recording.complete?.fullText).toBe(ANSWER);
    if (perDelta) expect(recording.tokenEvents).toBe(ANSWER_TOKENS);
    expect(server.requests).toHaveLength(1);
    const messages = server.requests[0].body.messages as Array<{ role: string; content: string }>;
    expect(messages[0]).toEqual({ role: 'system', content: INSTRUCTIONS });
    expect(messages.at(-1)).toEqual({ role: 'user', content: QUESTION });
    expect(server.requests[0].body.stream).toBe(true);
  });

  it('runs one tool round between two upstream requests, then relays the answer', async () => {
    server.enqueue(
      { toolCalls: [{ id: 'call_bench_1', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }] },
      { text: ANSWER, chunkSize: 4 },
    );
    const id = nextId++;
    const recording = await client.chat({ _id: id, graphKey: GRAPH, message: QUESTION }, 20_000);

    expect(recording.error).toBeUndefined();
    expect(recording.text).toBe(ANSWER);
    expect(recording.complete?.fullText).toBe(ANSWER);
    if (perDelta) expect(recording.tokenEvents).toBe(ANSWER_TOKENS);
    expect(server.requests).toHaveLength(2);
    const toolMessage = (
      server.requests[1].body.messages as Array<{ role: string; tool_call_id?: string; content: string }>
    ).find((message) => message.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe('call_bench_1');
    expect(JSON.parse(toolMessage?.content ?? '{}')).toMatchObject({ tool: 'read_node_detail', result: 'ok' });
    const names = recording.names.filter((event) => event !== 'ai:token');
    expect(names).toEqual(['ai:tool_start', 'ai:tool_result', 'ai:complete']);
    expect(recording.names.indexOf('ai:token')).toBeGreaterThan(recording.names.indexOf('ai:tool_result'));
    expect(recording.events.find((event) => event.event === 'ai:tool_start')?.payload).toMatchObject({
      _id: id,
      toolCallId: 'call_bench_1',
      toolName: 'read_node_detail',
    });
  });
});
