import request from 'supertest';
import { RecordedRequest, ScriptedLlmServer, ScriptedTurn } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const GRAPH = 'nba-workflow';
const TURNS = 100;
const FACT_TURN = 3;
const ASK_TURN = 80;
const FACT =
  'Before we go on: the staging API token for the NBA feed is called NBA_STAGING_TOKEN_42, please remember it.';
const ASK = 'What was the name of the staging token I gave you at the beginning?';
/** The scripted model's context window, in its own count (4 characters a token, tools included). */
const CONTEXT_LENGTH = 12_000;

const nodes = ['fetch-api', 'filter-active', 'sort-stats', 'display-html', 'error-handler'];
const question = (turn: number) =>
  turn === FACT_TURN
    ? FACT
    : turn === ASK_TURN
      ? ASK
      : `Turn ${turn}: how does ${nodes[turn % nodes.length]} handle the players of season ${1990 + turn}? ${'Please explain the data flow in detail. '.repeat(8)}`;

/** Summaries say nothing of the token: what the model gets about it at turn 80 comes from recall. */
function scripted(recorded: RecordedRequest): ScriptedTurn {
  const tools: string[] = (recorded.body?.tools ?? []).map(
    (tool: { function: { name: string } }) => tool.function.name,
  );
  if (tools.includes('record_summary')) {
    return {
      toolCalls: [
        {
          name: 'record_summary',
          arguments: {
            summary: 'The user went through the data flow of the NBA workflow, node by node.',
            nodesMentioned: nodes,
            keyFindings: [],
            toolsUsed: [],
            topics: ['data flow'],
          },
        },
      ],
    };
  }
  // Asked to remember something, a model says so in a sentence; a paragraph about something else would dilute the
  // turn's vector (docs/memory.md, "Recall").
  const messages: Array<{ role: string; content: string }> = recorded.body?.messages ?? [];
  if (messages.findLast((message) => message.role === 'user')?.content === FACT)
    return { text: 'Noted, I will keep it in mind for the rest of our work on the workflow.' };
  return {
    text: `It reads the players, keeps the active ones and passes them on to the next node on sheet main. ${'The flow is linear and each step is logged. '.repeat(20)}`,
  };
}

/**
 * Done-when of docs/memory.md, end to end on the scripted server: a 100-turn conversation whose
 * history is ~10 times the model's context window never gets context_length, and a fact stated at
 * turn 3 reaches the model at turn 80.
 */
describe('A 100-turn conversation with memory (end to end, scripted model with a context window)', () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  const statuses: number[] = [];
  let threadId = '';

  beforeAll(async () => {
    server = await ScriptedLlmServer.start({ contextLength: CONTEXT_LENGTH });
    server.enqueue(...Array.from({ length: 400 }, () => scripted));
    app = await startTestApp({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      RATE_LIMIT_PER_MINUTE: '0',
      AI_HISTORY_MAX_TOKENS: '6000',
      MEMORY_L1_EVERY_CHARS: '3000',
      MEMORY_L2_EVERY_CHARS: '1000',
      MEMORY_RECALL_MAX_TOKENS: '800',
      MEMORY_SUMMARY_MAX_TOKENS: '1000',
    });
    for (let turn = 1; turn <= TURNS; turn += 1) {
      const answer = await request(app.url)
        .post('/api/ai/chat')
        .send({ graphKey: GRAPH, message: question(turn), ...(threadId ? { threadId } : {}) });
      statuses.push(answer.status);
      threadId ||= answer.body.threadId;
    }
  }, 120_000);

  afterAll(async () => {
    await app.close();
    await server.close();
  });

  const chatRequests = () =>
    server.requests.filter(
      (recorded) =>
        recorded.endpoint === 'openai.chat' && !JSON.stringify(recorded.body.tools ?? []).includes('record_summary'),
    );

  it('answers every turn: no request is refused for its size', () => {
    expect(statuses).toEqual(Array.from({ length: TURNS }, () => 200));
    const requests = chatRequests();
    expect(requests).toHaveLength(TURNS);
    expect(requests.every((recorded) => recorded.status === 200 && recorded.prompt !== null)).toBe(true);
    expect(Math.max(...requests.map((recorded) => recorded.prompt?.tokens ?? Infinity))).toBeLessThanOrEqual(
      CONTEXT_LENGTH,
    );
  });

  it('holds a conversation several times larger than the window: without memory’s cut it could not be sent', async () => {
    const thread = await request(app.url).get(`/api/ai/thread/${threadId}`).expect(200);
    const conversationChars = JSON.stringify(thread.body.messages).length;
    expect(conversationChars / 4).toBeGreaterThan(CONTEXT_LENGTH * 2.5);
  });

  it('gives the model, at turn 80, the fact stated at turn 3, recalled from memory', () => {
    const sent: Array<{ role: string; content: string }> = chatRequests()[ASK_TURN - 1].body.messages;
    expect(sent.findLast((message) => message.role === 'user')?.content).toBe(ASK);
    // The message's DATA_ADDED event says what was recalled for it.
    expect(sent.find((message) => message.content.startsWith('[SYSTEM] Loaded'))?.content).toMatch(
      /^\[SYSTEM\] Loaded .*recalled memory record/,
    );
    expect(sent.some((message) => message.content === FACT)).toBe(false); // turn 3 left the history long ago
    const recall = sent.find(
      (message) =>
        message.role === 'system' && message.content.startsWith('[Recalled from earlier in this conversation'),
    );
    expect(recall?.content).toContain('NBA_STAGING_TOKEN_42');
    expect(sent.find((message) => message.content.startsWith('[Conversation so far'))).toBeDefined();
  });

  it('remembers the whole conversation: a record per turn, summaries of them', async () => {
    const deadline = Date.now() + 20_000;
    let records: Array<{ level: number }> = [];
    while (Date.now() < deadline) {
      records = (await request(app.url).get(`/api/ai/thread/${threadId}/memory`).expect(200)).body;
      if (records.filter((record) => record.level === 0).length === TURNS) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(records.filter((record) => record.level === 0)).toHaveLength(TURNS);
    expect(records.filter((record) => record.level === 1).length).toBeGreaterThan(10);
    expect(records.filter((record) => record.level === 2).length).toBeGreaterThan(0);
  });
});
