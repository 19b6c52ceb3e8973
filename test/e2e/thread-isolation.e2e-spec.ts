import request from 'supertest';
import { LogEntry } from '../../src/observability/log-entry';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { AiSocketClient } from '../support/ai-socket.client';
import { RecordedRequest, ScriptedLlmServer, ScriptedTurn } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const GRAPH = 'nba-workflow';
/** Questions per conversation, sent back to back on each thread while the other threads run. */
const QUESTIONS = 12;
const CONVERSATIONS = ['alpha', 'bravo', 'charlie', 'delta'];

/** Every text a request carried, user turns and tool results alike. */
function textsOf(recorded: RecordedRequest): string[] {
  return (recorded.body.messages as Array<{ role: string; content: unknown }>)
    .filter((message) => message.role === 'user' || message.role === 'tool' || message.role === 'assistant')
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '')));
}

/** The conversation markers ("[alpha 3]") a request carried. */
function markersOf(recorded: RecordedRequest): Set<string> {
  const found = new Set<string>();
  for (const text of textsOf(recorded))
    for (const match of text.matchAll(/\[(alpha|bravo|charlie|delta) \d+\]/g)) found.add(match[1]);
  return found;
}

/**
 * Isolation (docs/threads.md, "Isolation"): conversations interleaved under load — several threads,
 * each asked question after question over its own socket while the others run, with tool rounds in
 * between — never see each other's messages: every upstream request carries the messages of one
 * conversation only, and every thread holds exactly its own.
 */
describe('Threads interleaved under load never see each other’s messages', () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  let logs: LogEntry[];

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      RATE_LIMIT_PER_MINUTE: '0',
    });
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });
  afterAll(async () => {
    resetLogSink();
    await app.close();
    await server.close();
  });

  it(`${CONVERSATIONS.length} conversations × ${QUESTIONS} questions with tool rounds, at once`, async () => {
    // Each request is answered from what it carries: a read tool round first, then an answer quoting the question.
    const answer = (recorded: RecordedRequest): ScriptedTurn => {
      const messages = recorded.body.messages as Array<{ role: string; content: string }>;
      const question = [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
      if (messages.at(-1)?.role !== 'tool') {
        return {
          text: `Looking into ${question}.`,
          chunkSize: 7,
          delayMs: 2,
          toolCalls: [{ name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }],
        };
      }
      return { text: `Answer to ${question}`, chunkSize: 5, delayMs: 2 };
    };
    server.enqueue(...Array.from({ length: CONVERSATIONS.length * QUESTIONS * 2 }, () => answer));

    const conversations = await Promise.all(
      CONVERSATIONS.map(async (name, index) => {
        const client = await AiSocketClient.connect(app.url);
        let threadId: string | undefined;
        try {
          for (let turn = 0; turn < QUESTIONS; turn += 1) {
            const done = await client.chat(
              {
                _id: turn + 1,
                graphKey: GRAPH,
                message: `[${name} ${turn}] what does fetch-api do?`,
                ...(threadId ? { threadId } : {}),
              },
              30_000,
            );
            expect(done.complete?.fullText).toContain(`Answer to [${name} ${turn}]`);
            threadId = done.complete!.threadId;
          }
        } finally {
          client.close();
        }
        return { name, index, threadId: threadId! };
      }),
    );

    // Every upstream request carried one conversation only, and conversations did interleave.
    const chats = server.requests.filter((recorded) => recorded.endpoint === 'openai.chat');
    expect(chats).toHaveLength(CONVERSATIONS.length * QUESTIONS * 2);
    const owners = chats.map((recorded) => [...markersOf(recorded)]);
    expect(owners.every((markers) => markers.length === 1)).toBe(true);
    const switches = owners.slice(1).filter((markers, index) => markers[0] !== owners[index][0]).length;
    expect(switches).toBeGreaterThan(CONVERSATIONS.length * 4);

    // Every thread holds its own questions and answers, in order, and nothing else.
    for (const { name, threadId } of conversations) {
      const thread = (await request(app.url).get(`/api/ai/thread/${threadId}`).expect(200)).body;
      const questions = thread.messages
        .filter((message: { role: string }) => message.role === 'user')
        .map((message: { content: string }) => message.content);
      expect(questions).toEqual(
        Array.from({ length: QUESTIONS }, (_, turn) => `[${name} ${turn}] what does fetch-api do?`),
      );
      const others = CONVERSATIONS.filter((other) => other !== name);
      for (const message of thread.messages as Array<{ content: string }>) {
        for (const other of others) expect(message.content).not.toContain(`[${other} `);
      }
    }
    expect(logs.filter((entry) => entry.event === 'thread_isolation_violation')).toEqual([]);
  }, 120_000);
});
