import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { McpSessionRegistry } from '../../src/ai/mcp/mcp-session.registry';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';
import { TestRedisServer } from '../support/test-redis.server';

const SECRET = 'mcp-instances-secret-of-at-least-32-characters!';
const GRAPH = 'nba-workflow';

const sign = (sub: string, role: string, workspace = 'default') =>
  jwt.sign({ sub, workspace, role }, SECRET, { expiresIn: 600 });
const admin = sign('ada', 'admin');
const editor = sign('eddie', 'editor');
const otherEditor = sign('emma', 'editor');
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

type ToolResult = { content: Array<{ type: string; text: string }>; structuredContent?: any; isError?: boolean };

/**
 * Two instances on one SQLite file and one Redis, as behind a gateway that may send a session's requests to either
 * (a restart, a refreshed token hashed elsewhere): an MCP session opened on A is served by B, with its client's
 * capabilities (an ask_first change elicited from B), and by nobody once ended or for anybody else
 * (docs/mcp.md, "Several instances").
 */
describe(`MCP sessions across instances (${McpSessionRegistry.name} with Redis)`, () => {
  let llm: ScriptedLlmServer;
  let redis: TestRedisServer;
  let dataDir: string;
  let a: TestApp;
  let b: TestApp;
  const clients: Client[] = [];

  /**
   * A real SDK client whose requests go to whichever instance `route.to` names at the time (its fetch is rerouted);
   * `elicitation` makes it answer every question yes.
   */
  const connect = async (token: string, route: { to: TestApp }, elicitation = false) => {
    const client = new Client(
      { name: 'roaming-client', version: '2.0.0' },
      { capabilities: elicitation ? { elicitation: {} } : {} },
    );
    if (elicitation)
      client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { apply: true } }));
    const transport = new StreamableHTTPClientTransport(new URL('http://gateway.invalid/mcp'), {
      requestInit: { headers: as(token) },
      fetch: (url, init) => fetch(new URL(new URL(url).pathname, route.to.url), init),
    });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  };
  const nodeKeys = async (): Promise<string[]> =>
    (await request(b.url).get(`/api/graphs/${GRAPH}`).set(as(editor)).expect(200)).body.nodes.map(
      (node: { _key: string }) => node._key,
    );

  beforeAll(async () => {
    [llm, redis] = await Promise.all([ScriptedLlmServer.start(), TestRedisServer.start()]);
    dataDir = mkdtempSync(path.join(tmpdir(), 'mcp-instances-'));
    const env = {
      ...llm.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'none',
      DATA_DIR: dataDir,
      REDIS_URL: redis.url,
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
    };
    a = await startTestApp(env);
    b = await startTestApp(env);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await b?.close({ keepData: true });
    await a?.close({ keepData: true });
    await Promise.all([llm?.close(), redis?.stop()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  it('serves on B a session initialized on A: tools listed and called with the same session id', async () => {
    const route = { to: a };
    const { client, transport } = await connect(editor, route);
    const sessionId = transport.sessionId!;
    expect(redis.cli('EXISTS', `graph-ai:mcp-session:${sessionId}`)).toBe('1');

    route.to = b;
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(['read_node_detail', 'search_graph', 'propose_create_node']));
    const detail = (await client.callTool({
      name: 'read_node_detail',
      arguments: { graphKey: GRAPH, nodeKey: 'fetch-api' },
    })) as ToolResult;
    expect(detail.isError).toBeFalsy();
    expect(detail.content[0].text).toContain('fetch-api');
    expect(transport.sessionId).toBe(sessionId);

    // And back on A, the session it opened still answers.
    route.to = a;
    expect((await client.listResources()).resources.length).toBeGreaterThan(0);
  });

  it('asks an ask_first change from B through elicitation, with the capabilities the client declared to A', async () => {
    await request(a.url)
      .put('/api/ai/policy')
      .set(as(admin))
      .send({ default: { create_node: 'ask_first' } })
      .expect(200);
    try {
      const route = { to: a };
      const { client } = await connect(editor, route, true);
      route.to = b;
      const applied = (await client.callTool({
        name: 'propose_create_node',
        arguments: {
          graphKey: GRAPH,
          nodeKey: 'log-roaming',
          typeKey: 'log-node',
          sheet: '0',
          posX: 820,
          posY: 300,
          reason: 'Log the fetch errors',
        },
      })) as ToolResult;
      expect(applied.structuredContent).toMatchObject({ status: 'applied', via: 'ask_first' });
      expect((await nodeKeys()).filter((key) => key === 'log-roaming')).toHaveLength(1);
    } finally {
      await request(a.url).put('/api/ai/policy').set(as(admin)).send({}).expect(200);
    }
  });

  it('refuses the session to another principal on B, and on every instance once its client ended it on A', async () => {
    const route = { to: a };
    const { client, transport } = await connect(editor, route);
    const sessionId = transport.sessionId!;
    const headers = {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
    };
    const listTools = { jsonrpc: '2.0', id: 99, method: 'tools/list', params: {} };

    const stolen = await request(b.url).post('/mcp').set(as(otherEditor)).set(headers).send(listTools);
    expect(stolen.status).toBe(404);
    expect(stolen.body).toMatchObject({ error: { code: -32001 } });

    route.to = b;
    await client.listTools(); // B now holds the session too
    route.to = a;
    await transport.terminateSession(); // DELETE, served by A
    expect(redis.cli('EXISTS', `graph-ai:mcp-session:${sessionId}`)).toBe('0');
    const ended = await request(b.url).post('/mcp').set(as(editor)).set(headers).send(listTools);
    expect(ended.status).toBe(404);
    await client.close();
  });
});
