import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { UiChatController } from '../../src/ai/ui-stream/ui-chat.controller';
import { ScriptedLlmServer, ScriptedToolCall } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const SECRET = 'ui-chat-e2e-secret-of-at-least-32-characters!';
const GRAPH = 'nba-workflow';
const sign = (sub: string, role: string, workspace = 'default') =>
  jwt.sign({ sub, workspace, role }, SECRET, { expiresIn: 600 });
const editor = sign('eddie', 'editor');
const viewer = sign('vera', 'viewer');
const stranger = sign('olga', 'admin', 'other-workspace');
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

type ToolPart = {
  type: string;
  toolCallId: string;
  toolName?: string;
  state: string;
  input?: unknown;
  output?: any;
  approval?: { id: string; approved?: boolean; reason?: string };
};
type DataPart = { type: string; id?: string; data: any };

const createNode = (id: string, nodeKey: string): ScriptedToolCall => ({
  id,
  name: 'propose_create_node',
  arguments: { nodeKey, typeKey: 'log-node', sheet: '0', posX: 820, posY: 300, reason: 'Log the fetch errors' },
});

/**
 * A conversation as useChat holds it, driven through the AI SDK's own client side: its DefaultChatTransport sends the
 * request and parses the SSE into chunks, its readUIMessageStream assembles the assistant message (continuing the last
 * one after an approval, as useChat does).
 */
class UiConversation {
  readonly messages: UIMessage[] = [];
  readonly chunks: UIMessageChunk[][] = [];
  private nextId = 0;

  constructor(
    private readonly transport: DefaultChatTransport<UIMessage>,
    readonly chatId: string,
  ) {}

  say(text: string): Promise<UIMessage> {
    this.messages.push({ id: `user-${++this.nextId}`, role: 'user', parts: [{ type: 'text', text }] });
    return this.send();
  }

  answer(data: { toolCallId: string; approved: boolean; answer?: string }): Promise<UIMessage> {
    this.messages.push({ id: `user-${++this.nextId}`, role: 'user', parts: [{ type: 'data-answer', data }] });
    return this.send();
  }

  /** useChat's addToolApprovalResponse, then its automatic resubmission. */
  decide(approvalId: string, approved: boolean, reason?: string): Promise<UIMessage> {
    const last = this.messages[this.messages.length - 1];
    const part = (last.parts as unknown as ToolPart[]).find((candidate) => candidate.approval?.id === approvalId);
    if (!part) throw new Error(`no approval ${approvalId} in the last message`);
    part.state = 'approval-responded';
    part.approval = { id: approvalId, approved, ...(reason ? { reason } : {}) };
    return this.send();
  }

  private async send(): Promise<UIMessage> {
    const stream = await this.transport.sendMessages({
      chatId: this.chatId,
      messages: this.messages,
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    const chunks: UIMessageChunk[] = [];
    this.chunks.push(chunks);
    const last = this.messages[this.messages.length - 1];
    const continued = last.role === 'assistant' ? structuredClone(last) : undefined;
    let message: UIMessage | undefined;
    const recorded = stream.pipeThrough(
      new TransformStream<UIMessageChunk, UIMessageChunk>({
        transform(chunk, controller) {
          chunks.push(chunk);
          controller.enqueue(chunk);
        },
      }),
    );
    try {
      for await (const snapshot of readUIMessageStream({
        message: continued,
        stream: recorded,
        terminateOnError: true,
      }))
        message = snapshot;
    } catch (error) {
      throw new Error(`${String(error)} (chunks: ${JSON.stringify(chunks.map((chunk) => chunk.type))})`, {
        cause: error,
      });
    }
    if (!message) throw new Error('the stream held no message');
    if (continued) this.messages[this.messages.length - 1] = message;
    else this.messages.push(message);
    return message;
  }
}

describe(`POST /api/ai/ui-chat (${UiChatController.name}), read by the AI SDK's client`, () => {
  let llm: ScriptedLlmServer;
  let app: TestApp;

  const transport = (token: string) =>
    new DefaultChatTransport<UIMessage>({
      api: `${app.url}/api/ai/ui-chat`,
      headers: as(token),
      body: { graphKey: GRAPH },
    });
  const nodeKeys = async (): Promise<string[]> =>
    (await request(app.url).get(`/api/graphs/${GRAPH}`).set(as(editor)).expect(200)).body.nodes.map(
      (node: { _key: string }) => node._key,
    );
  const text = (message: UIMessage) =>
    message.parts
      .filter((part) => part.type === 'text')
      .map((part) => (part as { text: string }).text)
      .join('');
  const toolParts = (message: UIMessage) => message.parts as unknown as ToolPart[];

  beforeAll(async () => {
    llm = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...llm.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
    });
  });
  afterAll(async () => {
    await app.close();
    await llm.close();
  });
  beforeEach(() => llm.reset());

  it('answers with the UI message stream: the header, text, a tool round and finish, the thread in the metadata', async () => {
    llm.enqueue(
      {
        text: 'Let me look. ',
        toolCalls: [{ id: 'call_read', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }],
      },
      { text: 'fetch-api calls the NBA stats API.' },
    );
    const raw = await fetch(`${app.url}/api/ai/ui-chat`, {
      method: 'POST',
      headers: { ...as(editor), 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'chat-header',
        trigger: 'submit-message',
        graphKey: GRAPH,
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What does fetch-api do?' }] }],
      }),
    });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    const sse = await raw.text();
    expect(sse).toMatch(/^data: \{"type":"start"/);
    expect(sse.trim().endsWith('data: [DONE]')).toBe(true);

    llm.enqueue(
      {
        text: 'Let me look. ',
        toolCalls: [{ id: 'call_read2', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }],
      },
      { text: 'fetch-api calls the NBA stats API.' },
    );
    const chat = new UiConversation(transport(editor), 'chat-tool-round');
    const answer = await chat.say('What does fetch-api do?');
    const types = chat.chunks[0].map((chunk) => chunk.type);
    expect(types[0]).toBe('start');
    expect(types).toEqual(
      expect.arrayContaining(['text-start', 'text-delta', 'text-end', 'tool-input-available', 'tool-output-available']),
    );
    expect(types[types.length - 1]).toBe('finish');
    expect(text(answer)).toBe('Let me look. fetch-api calls the NBA stats API.');
    const read = toolParts(answer).find((part) => part.toolCallId === 'call_read2');
    expect(read).toMatchObject({
      type: 'dynamic-tool',
      toolName: 'read_node_detail',
      state: 'output-available',
      input: { nodeKey: 'fetch-api' },
    });
    expect(JSON.stringify(read?.output)).toContain('fetch-api');
    const threadId = (answer.metadata as { threadId: string }).threadId;
    expect(threadId).toMatch(/^ai_/);
    // The chat id of useChat is not a thread: the next turn finds the thread in the answer's metadata.
    llm.enqueue({ text: 'It has two outputs.' });
    await chat.say('And its outputs?');
    expect((chat.messages[3].metadata as { threadId: string }).threadId).toBe(threadId);
    const thread = (await request(app.url).get(`/api/ai/thread/${threadId}`).set(as(editor)).expect(200)).body;
    expect(thread.messages.filter((message: { role: string }) => message.role === 'user')).toHaveLength(2);
  });

  it('shows a proposal as a tool-approval part with its preview, applies it once when the next request approves it', async () => {
    llm.enqueue(
      { text: 'I propose a log node.', toolCalls: [createNode('call_log', 'ui-log-node')] },
      { text: 'The log node is in place.' },
    );
    const chat = new UiConversation(transport(editor), 'chat-approval');
    const proposed = await chat.say('Log the fetch errors');
    const types = chat.chunks[0].map((chunk) => chunk.type);
    expect(types.slice(-4)).toEqual(['tool-input-available', 'data-proposal', 'tool-approval-request', 'finish']);
    const part = toolParts(proposed).find((candidate) => candidate.toolCallId === 'call_log');
    expect(part).toMatchObject({
      type: 'dynamic-tool',
      toolName: 'propose_create_node',
      state: 'approval-requested',
      approval: { id: 'call_log' },
      input: expect.objectContaining({ nodeKey: 'ui-log-node' }),
    });
    const preview = (proposed.parts as unknown as DataPart[]).find((candidate) => candidate.type === 'data-proposal');
    expect(preview?.data).toMatchObject({ kind: 'approval', toolCallId: 'call_log', preview: expect.any(Object) });
    expect(proposed.metadata).toMatchObject({ interrupt: 'approval' });
    expect(await nodeKeys()).not.toContain('ui-log-node');

    // A viewer cannot decide it, another workspace cannot see the thread: refused before any stream.
    const body = {
      id: (proposed.metadata as { threadId: string }).threadId,
      trigger: 'submit-message',
      graphKey: GRAPH,
    };
    await request(app.url)
      .post('/api/ai/ui-chat')
      .set(as(viewer))
      .send({ ...body, messages: chat.messages })
      .expect(404);
    await request(app.url)
      .post('/api/ai/ui-chat')
      .set(as(stranger))
      .send({ ...body, messages: chat.messages })
      .expect(404);

    const continued = await chat.decide('call_log', true);
    expect(chat.messages).toHaveLength(2);
    const decided = toolParts(continued).find((candidate) => candidate.toolCallId === 'call_log');
    expect(decided).toMatchObject({
      state: 'output-available',
      output: expect.objectContaining({ status: 'approved' }),
    });
    expect(text(continued)).toBe('I propose a log node.The log node is in place.');
    expect(continued.metadata).toMatchObject({ resolution: expect.objectContaining({ status: 'approved' }) });
    expect((await nodeKeys()).filter((key) => key === 'ui-log-node')).toHaveLength(1);

    // The same approval sent again decides nothing a second time.
    const replay = chat.messages.map((message) => structuredClone(message));
    Object.assign(toolParts(replay[1]).find((candidate) => candidate.toolCallId === 'call_log') as ToolPart, {
      state: 'approval-responded',
      approval: { id: 'call_log', approved: true },
    });
    const again = await request(app.url)
      .post('/api/ai/ui-chat')
      .set(as(editor))
      .send({ ...body, messages: replay })
      .expect(409);
    expect(again.body).toMatchObject({ code: 'conflict' });
    expect((await nodeKeys()).filter((key) => key === 'ui-log-node')).toHaveLength(1);
  });

  it('tells the model a rejection with its reason, as a denied tool part', async () => {
    llm.enqueue({ toolCalls: [createNode('call_no', 'ui-rejected-node')] }, { text: 'Understood, no log node.' });
    const chat = new UiConversation(transport(editor), 'chat-reject');
    await chat.say('Log the errors');
    const continued = await chat.decide('call_no', false, 'Not on this sheet');
    expect(toolParts(continued).find((part) => part.toolCallId === 'call_no')).toMatchObject({
      state: 'output-denied',
    });
    expect(text(continued)).toBe('Understood, no log node.');
    expect(JSON.stringify(llm.requests[1].body.messages)).toContain('Not on this sheet');
    expect(await nodeKeys()).not.toContain('ui-rejected-node');
  });

  it('shows a question as a data part, and resumes with the answer the next request carries', async () => {
    llm.enqueue(
      {
        toolCalls: [
          {
            id: 'call_q',
            name: 'ask_user',
            arguments: { kind: 'choice', question: 'Which season?', options: ['2023-24', '2024-25'] },
          },
        ],
      },
      { text: 'Using 2024-25.' },
    );
    const chat = new UiConversation(transport(viewer), 'chat-question');
    const asked = await chat.say('Show the stats');
    const question = (asked.parts as unknown as DataPart[]).find((part) => part.type === 'data-question');
    expect(question?.data).toMatchObject({
      kind: 'question',
      toolCallId: 'call_q',
      question: 'Which season?',
      options: ['2023-24', '2024-25'],
    });
    expect(asked.metadata).toMatchObject({ interrupt: 'question' });

    const wrong = await fetch(`${app.url}/api/ai/ui-chat`, {
      method: 'POST',
      headers: { ...as(viewer), 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'chat-question',
        trigger: 'submit-message',
        graphKey: GRAPH,
        messages: [
          ...chat.messages,
          {
            id: 'x',
            role: 'user',
            parts: [{ type: 'data-answer', data: { toolCallId: 'call_other', approved: true } }],
          },
        ],
      }),
    });
    expect(wrong.status).toBe(409);

    const answered = await chat.answer({ toolCallId: 'call_q', approved: true, answer: '2024-25' });
    expect(text(answered)).toBe('Using 2024-25.');
    expect(JSON.stringify(llm.requests[1].body.messages)).toContain('2024-25');
  });

  it('refuses what the chat refuses, before streaming: bad bodies, another workspace, regenerate', async () => {
    const send = (token: string, body: object) => request(app.url).post('/api/ai/ui-chat').set(as(token)).send(body);
    const message = [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }];
    await send(editor, { id: 'c', trigger: 'submit-message', graphKey: GRAPH, messages: message, extra: 1 }).expect(
      400,
    );
    await send(editor, { id: 'c', trigger: 'submit-message', graphKey: GRAPH, messages: [] }).expect(400);
    await send(editor, { id: 'c', trigger: 'regenerate-message', graphKey: GRAPH, messages: message }).expect(400);
    const empty = [{ id: 'u', role: 'user', parts: [{ type: 'text', text: '   ' }] }];
    await send(editor, { id: 'c', trigger: 'submit-message', graphKey: GRAPH, messages: empty }).expect(400);
    const outside = await send(stranger, { id: 'c', trigger: 'submit-message', graphKey: GRAPH, messages: message });
    expect(outside.status).toBe(404);
    await request(app.url)
      .post('/api/ai/ui-chat')
      .send({ id: 'c', trigger: 'submit-message', graphKey: GRAPH, messages: message })
      .expect(401);
    expect(llm.requests).toHaveLength(0);
  });

  it('stops the run when the client closes the stream, keeping the partial text in the thread', async () => {
    llm.enqueue({ text: 'A long answer that never ends', chunkSize: 4, hangAfterChunks: 2 });
    const controller = new AbortController();
    const stream = await transport(editor).sendMessages({
      chatId: 'chat-abort',
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Tell me everything' }] }],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: controller.signal,
    });
    const reader = stream.getReader();
    let threadId: string | undefined;
    let deltas = 0;
    const seen: string[] = [];
    while (deltas < 1) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended after ${seen.join(', ')}`);
      seen.push(value.type);
      if (value.type === 'start') threadId = (value.messageMetadata as { threadId: string }).threadId;
      if (value.type === 'text-delta') deltas++;
    }
    controller.abort();
    await reader.cancel().catch(() => undefined);
    await llm.waitForClientClose(0);
    let thread: { messages: Array<{ role: string; aborted?: boolean; content: string }> } | undefined;
    for (let attempt = 0; attempt < 50; attempt++) {
      thread = (await request(app.url).get(`/api/ai/thread/${threadId}`).set(as(editor)).expect(200)).body;
      if (thread?.messages.some((message) => message.aborted)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(thread?.messages.find((message) => message.role === 'assistant')).toMatchObject({
      aborted: true,
      content: expect.stringMatching(/^A/),
    });
  });
});

describe('POST /api/ai/ui-chat under the chat budgets and rate limit', () => {
  let llm: ScriptedLlmServer;
  let app: TestApp;

  beforeAll(async () => {
    llm = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...llm.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: '2',
      AI_MAX_TOTAL_TOKENS: '100',
    });
  });
  afterAll(async () => {
    await app.close();
    await llm.close();
  });

  it('refuses a spent budget with 402, and more requests than RATE_LIMIT_PER_MINUTE with 429', async () => {
    const body = {
      id: 'chat-budget',
      trigger: 'submit-message',
      graphKey: GRAPH,
      messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    };
    llm.enqueue({ text: 'Hello.', usage: { prompt: 150, completion: 10 } });
    await request(app.url).post('/api/ai/ui-chat').set(as(editor)).send(body).expect(200);
    const spent = await request(app.url).post('/api/ai/ui-chat').set(as(editor)).send(body).expect(402);
    expect(spent.body).toMatchObject({ code: 'budget_exceeded' });
    const limited = await request(app.url).post('/api/ai/ui-chat').set(as(editor)).send(body).expect(429);
    expect(limited.headers['retry-after']).toEqual(expect.any(String));
    expect(llm.requests).toHaveLength(1);
  });
});
