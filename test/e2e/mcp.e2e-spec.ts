import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { McpController } from '../../src/ai/mcp/mcp.controller';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const SECRET = 'mcp-e2e-secret-of-at-least-32-characters!';
const GRAPH = 'nba-workflow';
const READ_TOOLS = [
  'read_graph_overview',
  'search_nodes',
  'explore_neighborhood',
  'read_node_detail',
  'read_node_config',
  'list_available_node_types',
  'list_node_edges',
];

const sign = (sub: string, role: string, workspace = 'default') =>
  jwt.sign({ sub, workspace, role }, SECRET, { expiresIn: 600 });
const admin = sign('ada', 'admin');
const editor = sign('eddie', 'editor');
const viewer = sign('vera', 'viewer');
const stranger = sign('olga', 'admin', 'other-workspace');
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

/** The JSON of a resource's first content (the server's resources are JSON text). */
const jsonOf = (read: { contents: object[] }) => JSON.parse((read.contents[0] as { text: string }).text);

type ToolResult = { content: Array<{ type: string; text: string }>; structuredContent?: any; isError?: boolean };

const createNode = (nodeKey: string) => ({
  graphKey: GRAPH,
  nodeKey,
  typeKey: 'log-node',
  sheet: '0',
  posX: 820,
  posY: 300,
  reason: 'Log the fetch errors',
});

describe(`The MCP server at /mcp (${McpController.name}, the SDK's client over Streamable HTTP)`, () => {
  let llm: ScriptedLlmServer;
  let app: TestApp;
  const clients: Client[] = [];

  /** A real MCP client session; `answer` makes it support elicitation and answer each question so. */
  const connect = async (token: string, answer?: (message: string) => ElicitResult) => {
    const client = new Client(
      { name: 'e2e-client', version: '1.2.3' },
      { capabilities: answer ? { elicitation: {} } : {} },
    );
    if (answer) client.setRequestHandler(ElicitRequestSchema, (elicit) => answer(elicit.params.message));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: as(token) } }),
    );
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as ToolResult;
  const putPolicy = (body: object) => request(app.url).put('/api/ai/policy').set(as(admin)).send(body).expect(200);
  const nodeKeys = async (): Promise<string[]> =>
    (await request(app.url).get(`/api/graphs/${GRAPH}`).set(as(editor)).expect(200)).body.nodes.map(
      (node: { _key: string }) => node._key,
    );

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
  beforeEach(async () => {
    llm.reset();
    await putPolicy({});
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  it('refuses a request without a valid bearer token, and a session named by another user', async () => {
    await request(app.url)
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })
      .expect(401)
      .expect('WWW-Authenticate', 'Bearer');
    const client = await connect(editor);
    const transport = (client as unknown as { transport: StreamableHTTPClientTransport }).transport;
    const sessionId = transport.sessionId as string;
    expect(sessionId).toEqual(expect.any(String));
    const stolen = await request(app.url)
      .post('/mcp')
      .set(as(admin))
      .set('Mcp-Session-Id', sessionId)
      .set('Mcp-Protocol-Version', '2025-06-18')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })
      .expect(404);
    expect(stolen.body).toMatchObject({ error: { message: 'Session not found' } });
    // The owner's session still works.
    await expect(client.listTools()).resolves.toMatchObject({ tools: expect.any(Array) });
  });

  it('lists the read tools, search_graph and the propose_* tools for an editor, with graphKey on each', async () => {
    const client = await connect(editor);
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual([
      ...READ_TOOLS,
      'search_graph',
      'propose_create_node',
      'propose_create_edge',
      'propose_delete_node',
      'propose_update_node',
      'propose_move_node',
      'propose_delete_edge',
      'propose_batch',
    ]);
    for (const tool of tools) expect(tool.inputSchema.required).toContain('graphKey');
    const create = tools.find((tool) => tool.name === 'propose_create_node');
    expect(create?.description).toContain('pending_approval');
    expect(client.getServerVersion()).toMatchObject({ name: 'graph-ai-assistant' });
  });

  it('runs the read tools and search_graph on a graph of the workspace, without any LLM call', async () => {
    const client = await connect(viewer);
    const overview = await call(client, 'read_graph_overview', { graphKey: GRAPH });
    expect(overview.isError).toBeUndefined();
    expect(JSON.parse(overview.content[0].text)).toMatchObject({ graph: expect.objectContaining({ key: GRAPH }) });

    const detail = await call(client, 'read_node_detail', { graphKey: GRAPH, nodeKey: 'fetch-api' });
    expect(detail.content[0].text).toContain('fetch-api');
    const unknownNode = await call(client, 'read_node_detail', { graphKey: GRAPH, nodeKey: 'no-such-node' });
    expect(unknownNode.isError).toBe(true);

    const found = await call(client, 'search_graph', { graphKey: GRAPH, query: 'fetch the NBA players', maxNodes: 5 });
    expect(found.isError).toBeUndefined();
    expect(found.content[0].text).toContain('RELEVANT NODES');
    expect(found.structuredContent.nodeKeys).toContain('fetch-api');

    const invalid = await call(client, 'search_graph', { graphKey: GRAPH, query: 'x', maxNodes: 500, extra: 1 });
    expect(invalid).toMatchObject({ isError: true, structuredContent: { code: 'bad_request' } });
    expect(invalid.structuredContent.message).toMatch(/maxNodes/);
    expect(llm.requests).toHaveLength(0);
  });

  it("answers another workspace's graph as not found, in the tools and the resources", async () => {
    const outsider = await connect(stranger);
    for (const [name, args] of [
      ['read_graph_overview', { graphKey: GRAPH }],
      ['search_graph', { graphKey: GRAPH, query: 'fetch' }],
      ['propose_create_node', createNode('log-errors')],
    ] as const) {
      const result = await call(outsider, name, args);
      expect(result).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });
    }
    await expect(outsider.listResources()).resolves.toEqual({ resources: [] });
    await expect(outsider.readResource({ uri: `graph://${GRAPH}` })).rejects.toThrow(/Resource not found/);
    expect(await nodeKeys()).not.toContain('log-errors');
  });

  it("lists the workspace's graphs and their sheets as resources, and reads them", async () => {
    const client = await connect(viewer);
    const { resources } = await client.listResources();
    expect(resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ uri: `graph://${GRAPH}`, name: GRAPH, mimeType: 'application/json' }),
        expect.objectContaining({ uri: `graph://${GRAPH}/sheets/0` }),
      ]),
    );
    const graph = await client.readResource({ uri: `graph://${GRAPH}` });
    const summary = jsonOf(graph);
    expect(summary).toMatchObject({ graphKey: GRAPH, nodeCount: expect.any(Number), edgeCount: expect.any(Number) });
    expect(summary.sheets[0]).toMatchObject({ id: '0', uri: `graph://${GRAPH}/sheets/0` });
    const sheet = jsonOf(await client.readResource({ uri: `graph://${GRAPH}/sheets/0` }));
    expect(sheet.nodes.map((node: { key: string }) => node.key)).toContain('fetch-api');
    await expect(client.readResource({ uri: `graph://${GRAPH}/sheets/99` })).rejects.toThrow(/Resource not found/);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'graph://{graphKey}',
      'graph://{graphKey}/sheets/{sheetId}',
    ]);
  });

  it('offers a viewer no propose_* tool, and refuses one called anyway', async () => {
    const client = await connect(viewer);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual([...READ_TOOLS, 'search_graph']);
    const refused = await call(client, 'propose_create_node', createNode('viewer-node'));
    expect(refused).toMatchObject({ isError: true, structuredContent: { status: 'refused', reason: 'forbidden' } });
    expect(await nodeKeys()).not.toContain('viewer-node');
    await expect(request(app.url).get('/api/ai/approvals').set(as(viewer)).expect(200)).resolves.toMatchObject({
      body: [],
    });
  });

  it('does not list forbidden kinds, and refuses them', async () => {
    await putPolicy({ default: { delete_node: 'forbidden' } });
    const client = await connect(editor);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).not.toContain('propose_delete_node');
    expect(names).toContain('propose_create_node');
    const refused = await call(client, 'propose_delete_node', { graphKey: GRAPH, nodeKey: 'fetch-api', reason: 'x' });
    expect(refused).toMatchObject({ structuredContent: { status: 'refused', reason: 'forbidden' }, isError: true });
    expect(await nodeKeys()).toContain('fetch-api');
  });

  it('refuses invalid arguments and references with the reason, storing nothing', async () => {
    const client = await connect(editor);
    const invalid = await call(client, 'propose_create_node', { ...createNode('bad'), posX: 'left' });
    expect(invalid).toMatchObject({ isError: true, structuredContent: { status: 'refused', reason: 'invalid' } });
    const unknownNode = await call(client, 'propose_delete_node', { graphKey: GRAPH, nodeKey: 'ghost', reason: 'x' });
    expect(unknownNode).toMatchObject({ isError: true, structuredContent: { status: 'refused', reason: 'invalid' } });
    const missingGraph = await call(client, 'propose_create_node', { ...createNode('bad'), graphKey: undefined });
    expect(missingGraph).toMatchObject({ isError: true, structuredContent: { code: 'bad_request' } });
    await expect(request(app.url).get('/api/ai/approvals').set(as(editor)).expect(200)).resolves.toMatchObject({
      body: [],
    });
  });

  it('sends a validation_required proposal to the approval queue; approved there, it is in the graph exactly once', async () => {
    const client = await connect(editor);
    const proposed = await call(client, 'propose_create_node', createNode('log-fetch-errors'));
    expect(proposed.isError).toBeUndefined();
    expect(proposed.structuredContent).toMatchObject({ status: 'pending_approval', threadId: expect.any(String) });
    expect(JSON.parse(proposed.content[0].text)).toMatchObject({ status: 'pending_approval' });
    const { threadId, toolCallId } = proposed.structuredContent;
    expect(await nodeKeys()).not.toContain('log-fetch-errors');

    const queue = (await request(app.url).get('/api/ai/approvals').set(as(editor)).expect(200)).body;
    expect(queue).toEqual([
      expect.objectContaining({
        threadId,
        graphKey: GRAPH,
        origin: 'mcp',
        interrupt: expect.objectContaining({ kind: 'approval', toolCallId }),
      }),
    ]);

    const approved = await request(app.url)
      .post('/api/ai/resume')
      .set(as(editor))
      .send({ threadId, approved: true })
      .expect(200);
    expect(approved.body).toMatchObject({ type: 'message', resolution: { status: 'approved' } });
    await request(app.url).post('/api/ai/resume').set(as(editor)).send({ threadId, approved: true }).expect(409);

    const keys = await nodeKeys();
    expect(keys.filter((key) => key === 'log-fetch-errors')).toHaveLength(1);
    const changes = (await request(app.url).get(`/api/ai/thread/${threadId}/changes`).set(as(editor)).expect(200)).body;
    expect(changes).toEqual([expect.objectContaining({ actor: expect.objectContaining({ via: 'approval' }) })]);
    const thread = (await request(app.url).get(`/api/ai/thread/${threadId}`).set(as(editor)).expect(200)).body;
    expect(thread.messages[0]).toMatchObject({ role: 'user', content: expect.stringContaining('e2e-client 1.2.3') });
    await expect(request(app.url).get('/api/ai/approvals').set(as(editor))).resolves.toMatchObject({ body: [] });
    // The decision ran no model: the one that proposed is the client's.
    expect(llm.requests).toHaveLength(0);
  });

  it('applies and records an autonomous proposal at once', async () => {
    await putPolicy({ default: { create_node: 'autonomous' } });
    const client = await connect(editor);
    const create = (await client.listTools()).tools.find((tool) => tool.name === 'propose_create_node');
    expect(create?.description).toContain('applies it at once');
    const applied = await call(client, 'propose_create_node', createNode('autonomous-log'));
    expect(applied.structuredContent).toMatchObject({
      status: 'applied',
      via: 'autonomous',
      appliedBy: 'server',
      operationId: expect.any(String),
    });
    expect(await nodeKeys()).toContain('autonomous-log');
    const changes = (
      await request(app.url).get(`/api/ai/thread/${applied.structuredContent.threadId}/changes`).set(as(editor))
    ).body;
    expect(changes).toEqual([
      expect.objectContaining({
        operationId: applied.structuredContent.operationId,
        actor: expect.objectContaining({ userId: 'eddie', via: 'autonomous' }),
      }),
    ]);
  });

  it('asks an ask_first change through elicitation: applied after a yes, nothing after a no', async () => {
    await putPolicy({ default: { create_node: 'ask_first' } });
    const questions: string[] = [];
    const yes = await connect(editor, (message) => {
      questions.push(message);
      return { action: 'accept', content: { apply: true } };
    });
    const applied = await call(yes, 'propose_create_node', createNode('asked-log'));
    expect(applied.structuredContent).toMatchObject({ status: 'applied', via: 'ask_first' });
    expect(questions).toEqual([expect.stringContaining('create_node')]);
    expect(questions[0]).toContain('asked-log');
    expect(await nodeKeys()).toContain('asked-log');

    const no = await connect(editor, () => ({ action: 'decline' }));
    const declined = await call(no, 'propose_create_node', createNode('declined-log'));
    expect(declined.structuredContent).toMatchObject({ status: 'declined', threadId: expect.any(String) });
    expect(await nodeKeys()).not.toContain('declined-log');
  });

  it('refuses an ask_first change with a clear message when the client cannot ask', async () => {
    await putPolicy({ default: { create_node: 'ask_first' } });
    const client = await connect(editor);
    const refused = await call(client, 'propose_create_node', createNode('unasked-log'));
    expect(refused).toMatchObject({ isError: true, structuredContent: { status: 'refused', reason: 'ask_first' } });
    expect(refused.structuredContent.message).toMatch(/elicitation/);
    expect(await nodeKeys()).not.toContain('unasked-log');
  });

  it('counts the tool calls in /metrics', async () => {
    const client = await connect(viewer);
    await call(client, 'read_graph_overview', { graphKey: GRAPH });
    const metrics = (await request(app.url).get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/graph_ai_mcp_tool_calls_total\{tool="read_graph_overview",outcome="ok"\} \d+/);
    expect(metrics).toMatch(/graph_ai_mcp_sessions \d+/);
  });
});

describe('The MCP server under the rate limit and the budgets of the chat', () => {
  let llm: ScriptedLlmServer;
  let app: TestApp;

  beforeAll(async () => {
    llm = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...llm.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: '3',
      AI_MAX_TOTAL_TOKENS: '100',
    });
  });
  afterAll(async () => {
    await app.close();
    await llm.close();
  });

  const connect = async (token: string) => {
    const client = new Client({ name: 'e2e-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: as(token) } }),
    );
    return client;
  };

  it("shares the principal's RATE_LIMIT_PER_MINUTE with the chat, and refuses calls once the token budget is spent", async () => {
    const client = await connect(editor);
    const first = (await client.callTool({
      name: 'read_graph_overview',
      arguments: { graphKey: GRAPH },
    })) as ToolResult;
    expect(first.isError).toBeUndefined();
    // A chat spends the same principal's requests, and the whole token budget.
    llm.enqueue({ text: 'Done.', usage: { prompt: 150, completion: 10 } });
    await request(app.url)
      .post('/api/ai/chat')
      .set(as(editor))
      .send({ graphKey: GRAPH, message: 'What does fetch-api do?' })
      .expect(200);
    const spent = (await client.callTool({
      name: 'search_graph',
      arguments: { graphKey: GRAPH, query: 'fetch' },
    })) as ToolResult;
    expect(spent).toMatchObject({ isError: true, structuredContent: { code: 'budget_exceeded' } });
    const limited = (await client.callTool({
      name: 'read_graph_overview',
      arguments: { graphKey: GRAPH },
    })) as ToolResult;
    expect(limited).toMatchObject({
      isError: true,
      structuredContent: { code: 'rate_limit', retryable: true, retryAfterMs: expect.any(Number) },
    });
    // Another principal has requests left, but not the spent budget.
    const other = await connect(admin);
    const refused = (await other.callTool({
      name: 'propose_create_node',
      arguments: createNode('over-budget'),
    })) as ToolResult;
    expect(refused).toMatchObject({ isError: true, structuredContent: { code: 'budget_exceeded' } });
    await client.close();
    await other.close();
  });
});
