import Database from 'better-sqlite3';
import jwt from 'jsonwebtoken';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import request from 'supertest';
import { reencryptSecrets } from '../../src/cli/reencrypt-secrets.cli';
import { SQLITE_FILE_NAME } from '../../src/database/sqlite/sqlite-database.opener';
import { LogEntry } from '../../src/observability/log-entry';
import { configureLogging, resetLogSink, setLogSink } from '../../src/observability/logger';
import { ProviderConfigsController } from '../../src/providers/configs/http/provider-configs.controller';
import { apiKeySha256, ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

const SECRET = 'provider-configs-e2e-secret-of-32-chars';
const GRAPH = 'nba-workflow';
const KEY_A = 'sk-workspace-a-0123456789-AAAA';
const KEY_B = 'sk-workspace-b-9876543210-BBBB';
const ENV_KEY = 'sk-scripted-test';

const sign = (sub: string, workspace: string, role: string) =>
  jwt.sign({ sub, workspace, role }, SECRET, { expiresIn: 600 });
const as = (token: string) => ({ Authorization: `Bearer ${token}` });
const secretsKey = () => randomBytes(32).toString('base64');

const adminA = sign('ada', 'ws-a', 'admin');
const editorA = sign('eve', 'ws-a', 'editor');
const viewerA = sign('vic', 'ws-a', 'viewer');
const adminB = sign('bea', 'ws-b', 'admin');
const adminC = sign('cal', 'ws-c', 'admin');

/** Every text a log entry carries, to look for a key in it. */
const logged = (entries: LogEntry[]) => entries.map((entry) => JSON.stringify(entry)).join('\n');

describe(`${ProviderConfigsController.name} (docs/protocol.md §8.5)`, () => {
  let environment: ScriptedLlmServer;
  let upstreamA: ScriptedLlmServer;
  let upstreamB: ScriptedLlmServer;
  const entries: LogEntry[] = [];

  beforeAll(async () => {
    setLogSink((entry) => entries.push(entry));
    [environment, upstreamA, upstreamB] = await Promise.all([
      ScriptedLlmServer.start(),
      ScriptedLlmServer.start(),
      ScriptedLlmServer.start(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([environment.close(), upstreamA.close(), upstreamB.close()]);
    configureLogging({ aiDebug: false });
    resetLogSink();
  });
  beforeEach(() => {
    for (const server of [environment, upstreamA, upstreamB]) server.reset();
    entries.length = 0;
  });

  const boot = (extra: Record<string, string> = {}, dataDir?: string) =>
    startTestApp({
      ...environment.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
      LOG_LEVEL: 'debug',
      AI_DEBUG: 'true',
      ...extra,
      ...(dataDir ? { DATA_DIR: dataDir } : {}),
    });

  /** The demo graph, copied into another workspace by its admin. */
  async function importDemo(app: TestApp, admin: string): Promise<void> {
    const demo = await request(app.url)
      .get(`/api/graphs/${GRAPH}`)
      .set(as(sign('root', 'default', 'admin')))
      .expect(200);
    await request(app.url).put(`/api/graphs/${GRAPH}`).set(as(admin)).send(demo.body).expect(200);
  }

  describe('without AI_SECRETS_KEY', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await boot();
    });
    afterAll(() => app.close());

    it('refuses a configuration that carries a key with a clear 400, and accepts one without', async () => {
      const refused = await request(app.url)
        .post('/api/ai/provider-configs')
        .set(as(adminA))
        .send({ name: 'Team', provider: 'deepseek', model: 'deepseek-chat', apiKey: KEY_A })
        .expect(400);
      expect(refused.body).toMatchObject({
        code: 'bad_request',
        message: expect.stringContaining('AI_SECRETS_KEY is not set'),
      });
      expect(JSON.stringify(refused.body)).not.toContain(KEY_A);

      const keyless = await request(app.url)
        .post('/api/ai/provider-configs')
        .set(as(adminA))
        .send({ name: 'Local', provider: 'openai-compatible', model: 'local-model', baseUrl: upstreamA.openAiBaseUrl })
        .expect(200);
      expect(keyless.body).toEqual({
        configId: expect.stringMatching(/^pc_/),
        name: 'Local',
        provider: 'openai-compatible',
        model: 'local-model',
        baseUrl: upstreamA.openAiBaseUrl,
        active: false,
        createdTime: expect.any(Number),
        updatedTime: expect.any(Number),
      });
      expect(logged(entries)).not.toContain(KEY_A);
    });
  });

  describe('with AI_SECRETS_KEY', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await boot({ AI_SECRETS_KEY: secretsKey() });
      await importDemo(app, adminA);
      await importDemo(app, adminB);
      await importDemo(app, adminC);
    });
    afterAll(() => app.close());

    const create = (token: string, body: object) =>
      request(app.url).post('/api/ai/provider-configs').set(as(token)).send(body);

    it('lets admins write and editors read, never viewers; the key is write-only (last four characters shown)', async () => {
      const created = await create(adminA, {
        name: 'Team DeepSeek',
        provider: 'deepseek',
        model: 'deepseek-chat',
        apiKey: KEY_A,
      }).expect(200);
      expect(created.body).toMatchObject({
        name: 'Team DeepSeek',
        provider: 'deepseek',
        apiKeyLast4: 'AAAA',
        active: false,
      });
      expect(created.body).not.toHaveProperty('apiKey');
      const { configId } = created.body;

      await create(editorA, { name: 'Nope', provider: 'ollama', model: 'llama3.1' }).expect(403);
      await request(app.url).get('/api/ai/provider-configs').set(as(viewerA)).expect(403);
      await request(app.url)
        .patch(`/api/ai/provider-configs/${configId}`)
        .set(as(editorA))
        .send({ model: 'x' })
        .expect(403);
      await request(app.url).post(`/api/ai/provider-configs/${configId}/activate`).set(as(editorA)).expect(403);
      await request(app.url).delete(`/api/ai/provider-configs/${configId}`).set(as(editorA)).expect(403);

      const listed = await request(app.url).get('/api/ai/provider-configs').set(as(editorA)).expect(200);
      expect(listed.body.find((config: { configId: string }) => config.configId === configId)).toEqual(created.body);
      const one = await request(app.url).get(`/api/ai/provider-configs/${configId}`).set(as(editorA)).expect(200);
      expect(one.body).toEqual(created.body);
      // Another workspace's configuration does not exist for them.
      await request(app.url).get(`/api/ai/provider-configs/${configId}`).set(as(adminB)).expect(404);
      await request(app.url).post(`/api/ai/provider-configs/${configId}/activate`).set(as(adminB)).expect(404);
      expect(JSON.stringify([created.body, listed.body, one.body])).not.toContain(KEY_A);
      await request(app.url).delete(`/api/ai/provider-configs/${configId}`).set(as(adminA)).expect(204);
      await request(app.url).get(`/api/ai/provider-configs/${configId}`).set(as(adminA)).expect(404);
    });

    it.each([
      [{ name: 'X', provider: 'mistral', model: 'm', apiKey: KEY_A }, /provider must be one of deepseek, openai/],
      [
        { name: 'X', provider: 'openai-compatible', model: 'm' },
        /baseUrl is required with provider "openai-compatible"/,
      ],
      [{ name: 'X', provider: 'deepseek', model: 'deepseek-chat' }, /apiKey is required with provider "deepseek"/],
      [{ name: 'X', provider: 'ollama', model: 'm', baseUrl: 'ftp://example.com' }, /baseUrl/],
      [{ name: 'X', provider: 'ollama', model: 'm', apiKey: 'short' }, /apiKey/],
      [{ name: 'X', provider: 'ollama', model: 'm', temperature: 0.2 }, /property temperature should not exist/],
      [{ provider: 'ollama', model: 'm' }, /name/],
    ])('refuses %j with a 400 that says why', async (body, message) => {
      const response = await create(adminA, body).expect(400);
      expect(response.body).toMatchObject({ code: 'bad_request', message: expect.stringMatching(message) });
    });

    it('keeps names unique per workspace (409) and checks a PATCH against the whole result', async () => {
      const first = await create(adminA, { name: 'Unique', provider: 'ollama', model: 'llama3.1' }).expect(200);
      const conflict = await create(adminA, { name: 'Unique', provider: 'ollama', model: 'llama3.1' }).expect(409);
      expect(conflict.body).toMatchObject({ code: 'conflict' });
      await create(adminB, { name: 'Unique', provider: 'ollama', model: 'llama3.1' }).expect(200);
      const id = first.body.configId;
      await request(app.url)
        .patch(`/api/ai/provider-configs/${id}`)
        .set(as(adminA))
        .send({ provider: 'openai-compatible' })
        .expect(400);
      const patched = await request(app.url)
        .patch(`/api/ai/provider-configs/${id}`)
        .set(as(adminA))
        .send({ provider: 'openai-compatible', baseUrl: upstreamA.openAiBaseUrl, apiKey: 'sk-patched-key-5678' })
        .expect(200);
      expect(patched.body).toMatchObject({
        provider: 'openai-compatible',
        baseUrl: upstreamA.openAiBaseUrl,
        apiKeyLast4: '5678',
      });
      expect(patched.body.updatedTime).toBeGreaterThan(first.body.updatedTime);
      const keyless = await request(app.url)
        .patch(`/api/ai/provider-configs/${id}`)
        .set(as(adminA))
        .send({ apiKey: null })
        .expect(200);
      expect(keyless.body).not.toHaveProperty('apiKeyLast4');
      await request(app.url).delete(`/api/ai/provider-configs/${id}`).set(as(adminA)).expect(204);
    });

    it('never sends a stored key to another endpoint: a PATCH of the URL or the provider alone drops the key, or asks for it again', async () => {
      const a = await create(adminA, {
        name: 'Redirected',
        provider: 'openai-compatible',
        model: 'model-a',
        baseUrl: upstreamA.openAiBaseUrl,
        apiKey: KEY_A,
      }).expect(200);
      const id = a.body.configId;
      await request(app.url).post(`/api/ai/provider-configs/${id}/activate`).set(as(adminA)).expect(200);
      // Admin B of the same workspace (or a stolen admin token) points it at another host, URL alone.
      const moved = await request(app.url)
        .patch(`/api/ai/provider-configs/${id}`)
        .set(as(adminA))
        .send({ baseUrl: upstreamB.openAiBaseUrl })
        .expect(200);
      expect(moved.body).toMatchObject({ baseUrl: upstreamB.openAiBaseUrl });
      expect(moved.body).not.toHaveProperty('apiKeyLast4');
      upstreamB.enqueue({ text: 'Answer from B.' });
      await request(app.url)
        .post('/api/ai/chat')
        .set(as(adminA))
        .send({ graphKey: GRAPH, message: 'What does fetch-api do?' })
        .expect(200);
      expect(upstreamB.requests).toHaveLength(1);
      expect(upstreamB.requests[0].apiKeySha256).not.toBe(apiKeySha256(KEY_A));
      expect(upstreamA.requests).toHaveLength(0);

      // A provider whose entry needs a key: the endpoint changes only with a new key.
      await request(app.url)
        .patch(`/api/ai/provider-configs/${id}`)
        .set(as(adminA))
        .send({ baseUrl: upstreamA.openAiBaseUrl, apiKey: KEY_A })
        .expect(200);
      const refused = await request(app.url)
        .patch(`/api/ai/provider-configs/${id}`)
        .set(as(adminA))
        .send({ provider: 'deepseek', baseUrl: null })
        .expect(400);
      expect(refused.body.message).toMatch(/apiKey is required when provider or baseUrl changes/);
      const kept = await request(app.url).get(`/api/ai/provider-configs/${id}`).set(as(adminA)).expect(200);
      expect(kept.body).toMatchObject({
        provider: 'openai-compatible',
        baseUrl: upstreamA.openAiBaseUrl,
        apiKeyLast4: 'AAAA',
      });
      // The model or the name alone keep the key: the endpoint is the same.
      const renamed = await request(app.url)
        .patch(`/api/ai/provider-configs/${id}`)
        .set(as(adminA))
        .send({ name: 'Renamed', model: 'model-a2' })
        .expect(200);
      expect(renamed.body).toMatchObject({ apiKeyLast4: 'AAAA' });
      await request(app.url).delete('/api/ai/provider-configs/active').set(as(adminA)).expect(204);
      await request(app.url).delete(`/api/ai/provider-configs/${id}`).set(as(adminA)).expect(204);
    });

    it('bills a configuration by its model (gpt-4o on a generic endpoint is not free) or by the prices it carries', async () => {
      const paid = await create(adminA, {
        name: 'Paid API behind the generic entry',
        provider: 'openai-compatible',
        model: 'gpt-4o',
        baseUrl: upstreamA.openAiBaseUrl,
        apiKey: KEY_A,
      }).expect(200);
      await request(app.url)
        .post(`/api/ai/provider-configs/${paid.body.configId}/activate`)
        .set(as(adminA))
        .expect(200);
      upstreamA.enqueue({ text: 'Priced.', usage: { prompt: 1_000_000, completion: 100_000 } });
      const answer = await request(app.url)
        .post('/api/ai/chat')
        .set(as(adminA))
        .send({ graphKey: GRAPH, message: 'What does fetch-api do?' })
        .expect(200);
      // gpt-4o: $2.50 per million in, $10 per million out.
      expect(answer.body.usage.costUsd).toBeCloseTo(2.5 + 1, 6);

      const own = await request(app.url)
        .patch(`/api/ai/provider-configs/${paid.body.configId}`)
        .set(as(adminA))
        .send({
          model: 'in-house-model',
          pricing: { inputPerMillion: 1, inputCacheHitPerMillion: 1, outputPerMillion: 2 },
        })
        .expect(200);
      expect(own.body.pricing).toEqual({ inputPerMillion: 1, inputCacheHitPerMillion: 1, outputPerMillion: 2 });
      upstreamA.enqueue({ text: 'Priced by its configuration.', usage: { prompt: 1_000_000, completion: 1_000_000 } });
      const second = await request(app.url)
        .post('/api/ai/chat')
        .set(as(adminA))
        .send({ graphKey: GRAPH, message: 'And error-handler?' })
        .expect(200);
      expect(second.body.usage.costUsd).toBeCloseTo(3, 6);
      const refused = await request(app.url)
        .patch(`/api/ai/provider-configs/${paid.body.configId}`)
        .set(as(adminA))
        .send({ pricing: { inputPerMillion: -1, inputCacheHitPerMillion: 0, outputPerMillion: 0 } })
        .expect(400);
      expect(refused.body.message).toMatch(/pricing\.inputPerMillion/);
      await request(app.url).delete('/api/ai/provider-configs/active').set(as(adminA)).expect(204);
      await request(app.url).delete(`/api/ai/provider-configs/${paid.body.configId}`).set(as(adminA)).expect(204);
    });

    it("sends each workspace's runs to its active configuration's base URL with its own key; a workspace without one uses the environment's", async () => {
      const a = await create(adminA, {
        name: 'A',
        provider: 'openai-compatible',
        model: 'model-a',
        baseUrl: upstreamA.openAiBaseUrl,
        apiKey: KEY_A,
      }).expect(200);
      const b = await create(adminB, {
        name: 'B',
        provider: 'openai-compatible',
        model: 'model-b',
        baseUrl: upstreamB.openAiBaseUrl,
        apiKey: KEY_B,
      }).expect(200);
      await request(app.url).get('/api/ai/provider-configs/active').set(as(adminA)).expect(404);
      const activated = await request(app.url)
        .post(`/api/ai/provider-configs/${a.body.configId}/activate`)
        .set(as(adminA))
        .expect(200);
      expect(activated.body).toMatchObject({ configId: a.body.configId, active: true });
      await request(app.url).post(`/api/ai/provider-configs/${b.body.configId}/activate`).set(as(adminB)).expect(200);
      expect(
        (await request(app.url).get('/api/ai/provider-configs/active').set(as(editorA)).expect(200)).body.configId,
      ).toBe(a.body.configId);

      upstreamA.enqueue({ text: 'Answer from A.' });
      upstreamB.enqueue({ text: 'Answer from B.' });
      environment.enqueue({ text: 'Answer from the environment.' });
      const chat = (token: string) =>
        request(app.url)
          .post('/api/ai/chat')
          .set(as(token))
          .send({ graphKey: GRAPH, message: 'What does fetch-api do?' })
          .expect(200);
      expect((await chat(adminA)).body.message).toBe('Answer from A.');
      expect((await chat(adminB)).body.message).toBe('Answer from B.');
      expect((await chat(adminC)).body.message).toBe('Answer from the environment.');

      expect(upstreamA.requests).toHaveLength(1);
      expect(upstreamA.requests[0]).toMatchObject({
        apiKeySha256: apiKeySha256(KEY_A),
        body: expect.objectContaining({ model: 'model-a' }),
      });
      expect(upstreamB.requests).toHaveLength(1);
      expect(upstreamB.requests[0]).toMatchObject({
        apiKeySha256: apiKeySha256(KEY_B),
        body: expect.objectContaining({ model: 'model-b' }),
      });
      expect(environment.requests).toHaveLength(1);
      expect(environment.requests[0].apiKeySha256).toBe(apiKeySha256(ENV_KEY));

      // The stored row holds no clear-text key, anywhere.
      const db = new Database(path.join(app.dataDir, SQLITE_FILE_NAME), { readonly: true });
      try {
        const rows = db
          .prepare('SELECT * FROM ai_provider_configs WHERE config_id IN (?, ?)')
          .all(a.body.configId, b.body.configId) as Array<Record<string, unknown>>;
        expect(rows).toHaveLength(2);
        const raw = JSON.stringify(rows);
        for (const key of [KEY_A, KEY_B]) {
          expect(raw).not.toContain(key);
          expect(raw).not.toContain(Buffer.from(key).toString('base64'));
        }
        expect(rows.map((row) => row.api_key_secret)).toEqual([
          expect.stringMatching(/^v1\./),
          expect.stringMatching(/^v1\./),
        ]);
        const threads = JSON.stringify(db.prepare('SELECT message FROM ai_thread_messages').all());
        expect(threads).not.toContain(KEY_A);
      } finally {
        db.close();
      }
      // Never in logs, debug events (AI_DEBUG is on) or answers.
      expect(logged(entries)).not.toContain(KEY_A);
      expect(logged(entries)).not.toContain(KEY_B);

      await request(app.url).delete('/api/ai/provider-configs/active').set(as(adminA)).expect(204);
      await request(app.url).delete('/api/ai/provider-configs/active').set(as(adminA)).expect(404);
      environment.enqueue({ text: 'Back to the environment.' });
      expect((await chat(adminA)).body.message).toBe('Back to the environment.');
      expect(upstreamA.requests).toHaveLength(1);
      await request(app.url).delete(`/api/ai/provider-configs/${a.body.configId}`).set(as(adminA)).expect(204);
      await request(app.url).delete(`/api/ai/provider-configs/${b.body.configId}`).set(as(adminB)).expect(204);
    });

    it("runs an automation on the workspace's active configuration, or on the one it names", async () => {
      const a = await create(adminA, {
        name: 'Auto A',
        provider: 'openai-compatible',
        model: 'model-a',
        baseUrl: upstreamA.openAiBaseUrl,
        apiKey: KEY_A,
      }).expect(200);
      const b = await create(adminA, {
        name: 'Auto B',
        provider: 'openai-compatible',
        model: 'model-b',
        baseUrl: upstreamB.openAiBaseUrl,
        apiKey: KEY_B,
      }).expect(200);
      await request(app.url).post(`/api/ai/provider-configs/${a.body.configId}/activate`).set(as(adminA)).expect(200);
      const automation = (overrides: object) =>
        request(app.url)
          .post('/api/ai/automations')
          .set(as(editorA))
          .send({
            name: `Review ${Object.keys(overrides).length}`,
            graphKey: GRAPH,
            prompt: 'Review the graph.',
            schedule: { cron: '0 9 * * 1', timezone: 'UTC' },
            ...overrides,
          })
          .expect(200);
      const runToEnd = async (automationId: string) => {
        await request(app.url).post(`/api/ai/automations/${automationId}/run`).set(as(editorA)).expect(200);
        for (
          const deadline = Date.now() + 10_000;
          Date.now() < deadline;
          await new Promise((resolve) => setTimeout(resolve, 20))
        ) {
          const [latest] = (
            await request(app.url).get(`/api/ai/automations/${automationId}/runs`).set(as(editorA)).expect(200)
          ).body;
          if (latest && latest.outcome !== 'running') return latest as { outcome: string };
        }
        throw new Error('the run did not end');
      };
      const onActive = (await automation({})).body;
      const onB = (await automation({ providerConfigId: b.body.configId })).body;

      upstreamA.enqueue({ text: 'Reviewed on A.' });
      expect(await runToEnd(onActive.automationId)).toMatchObject({ outcome: 'completed' });
      upstreamB.enqueue({ text: 'Reviewed on B.' });
      expect(await runToEnd(onB.automationId)).toMatchObject({ outcome: 'completed' });

      expect(upstreamA.requests).toHaveLength(1);
      expect(upstreamA.requests[0]).toMatchObject({
        apiKeySha256: apiKeySha256(KEY_A),
        body: expect.objectContaining({ model: 'model-a' }),
      });
      expect(upstreamB.requests).toHaveLength(1);
      expect(upstreamB.requests[0]).toMatchObject({
        apiKeySha256: apiKeySha256(KEY_B),
        body: expect.objectContaining({ model: 'model-b' }),
      });
      expect(environment.requests).toHaveLength(0);
      for (const { automationId } of [onActive, onB])
        await request(app.url).delete(`/api/ai/automations/${automationId}`).set(as(editorA)).expect(204);
      await request(app.url).delete('/api/ai/provider-configs/active').set(as(adminA)).expect(204);
    });

    it('keeps a run in progress on the provider it started with when the active configuration changes', async () => {
      const a = await create(adminA, {
        name: 'Run A',
        provider: 'openai-compatible',
        model: 'model-a',
        baseUrl: upstreamA.openAiBaseUrl,
        apiKey: KEY_A,
      }).expect(200);
      const b = await create(adminA, {
        name: 'Run B',
        provider: 'openai-compatible',
        model: 'model-b',
        baseUrl: upstreamB.openAiBaseUrl,
        apiKey: KEY_B,
      }).expect(200);
      await request(app.url).post(`/api/ai/provider-configs/${a.body.configId}/activate`).set(as(adminA)).expect(200);
      upstreamA.enqueue(
        {
          toolCalls: [{ id: 'call_read', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }],
          delayMs: 150,
        },
        { text: 'Still on A after the switch.' },
      );
      const running = request(app.url)
        .post('/api/ai/chat')
        .set(as(adminA))
        .send({ graphKey: GRAPH, message: 'Read fetch-api' });
      const pending = running.then((response) => response);
      await upstreamA.waitForRequests(1);
      await request(app.url).post(`/api/ai/provider-configs/${b.body.configId}/activate`).set(as(adminA)).expect(200);
      const answer = await pending;
      expect(answer.status).toBe(200);
      expect(answer.body.message).toBe('Still on A after the switch.');
      expect(upstreamA.requests).toHaveLength(2);
      expect(upstreamB.requests).toHaveLength(0);

      upstreamB.enqueue({ text: 'The next run is on B.' });
      const next = await request(app.url)
        .post('/api/ai/chat')
        .set(as(adminA))
        .send({ graphKey: GRAPH, message: 'Again' })
        .expect(200);
      expect(next.body.message).toBe('The next run is on B.');
      expect(upstreamB.requests[0].apiKeySha256).toBe(apiKeySha256(KEY_B));
      await request(app.url).delete('/api/ai/provider-configs/active').set(as(adminA)).expect(204);
    });

    it('never puts the key in an error, even when the upstream echoes it', async () => {
      const a = await create(adminA, {
        name: 'Echo',
        provider: 'openai-compatible',
        model: 'model-a',
        baseUrl: upstreamA.openAiBaseUrl,
        apiKey: KEY_A,
      }).expect(200);
      await request(app.url).post(`/api/ai/provider-configs/${a.body.configId}/activate`).set(as(adminA)).expect(200);
      upstreamA.enqueue({
        error: {
          status: 401,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
          message: `Incorrect API key provided: ${KEY_A}`,
        },
      });
      const failed = await request(app.url)
        .post('/api/ai/chat')
        .set(as(adminA))
        .send({ graphKey: GRAPH, message: 'Hello' });
      expect(failed.body).toMatchObject({ code: 'auth_error' });
      expect(JSON.stringify(failed.body)).not.toContain(KEY_A);
      expect(logged(entries)).not.toContain(KEY_A);
      await request(app.url).delete(`/api/ai/provider-configs/${a.body.configId}`).set(as(adminA)).expect(204);
    });
  });

  describe('rotating AI_SECRETS_KEY', () => {
    it('keeps keys usable with AI_SECRETS_KEY_PREVIOUS, re-encrypts them with the command, and says at start when keys cannot be opened', async () => {
      const oldKey = secretsKey();
      const newKey = secretsKey();
      const first = await boot({ AI_SECRETS_KEY: oldKey });
      const dataDir = first.dataDir;
      try {
        await importDemo(first, adminA);
        const a = await request(first.url)
          .post('/api/ai/provider-configs')
          .set(as(adminA))
          .send({
            name: 'A',
            provider: 'openai-compatible',
            model: 'model-a',
            baseUrl: upstreamA.openAiBaseUrl,
            apiKey: KEY_A,
          })
          .expect(200);
        await request(first.url)
          .post(`/api/ai/provider-configs/${a.body.configId}/activate`)
          .set(as(adminA))
          .expect(200);
      } finally {
        await first.close({ keepData: true });
      }
      const sealedBefore = readSealed(dataDir);

      // Without any key: the service starts, says so, and the workspace's runs fail clearly.
      entries.length = 0;
      const keyless = await boot({}, dataDir);
      try {
        expect(entries.find((entry) => entry.event === 'provider_config_keys_without_secrets_key')).toMatchObject({
          level: 'warn',
          configs: 1,
        });
        const refused = await request(keyless.url)
          .post('/api/ai/chat')
          .set(as(adminA))
          .send({ graphKey: GRAPH, message: 'Hello' })
          .expect(503);
        expect(refused.body).toMatchObject({
          code: 'provider_not_configured',
          message: expect.stringContaining('cannot be decrypted'),
        });
        expect(upstreamA.requests).toHaveLength(0);
      } finally {
        await keyless.close({ keepData: true });
      }

      // The new key with the old one as previous: the key still opens; the start-up says a rotation is due.
      entries.length = 0;
      const rotating = await boot({ AI_SECRETS_KEY: newKey, AI_SECRETS_KEY_PREVIOUS: oldKey }, dataDir);
      try {
        expect(entries.find((entry) => entry.event === 'provider_config_keys_stale')).toMatchObject({ configs: 1 });
        upstreamA.enqueue({ text: 'During the rotation.' });
        await request(rotating.url)
          .post('/api/ai/chat')
          .set(as(adminA))
          .send({ graphKey: GRAPH, message: 'Hello' })
          .expect(200);
        expect(upstreamA.requests[0].apiKeySha256).toBe(apiKeySha256(KEY_A));
      } finally {
        await rotating.close({ keepData: true });
      }

      const out: string[] = [];
      const io = {
        stdout: { write: (text: string) => out.push(text) },
        stderr: { write: (text: string) => out.push(text) },
      };
      const env = {
        NODE_ENV: 'test',
        DATA_DIR: dataDir,
        AI_SECRETS_KEY: newKey,
        AI_SECRETS_KEY_PREVIOUS: oldKey,
        SEED_DEMO: 'false',
      };
      expect(await reencryptSecrets([], env, io)).toBe(0);
      expect(out.join('')).toContain('1 re-encrypted with AI_SECRETS_KEY');
      expect(await reencryptSecrets([], env, io)).toBe(0);
      expect(out.join('')).toContain('0 re-encrypted with AI_SECRETS_KEY, 1 already current');
      expect(out.join('')).not.toContain(KEY_A);
      expect(readSealed(dataDir)).not.toBe(sealedBefore);

      // The old key is no longer needed.
      upstreamA.reset();
      entries.length = 0;
      const rotated = await boot({ AI_SECRETS_KEY: newKey }, dataDir);
      try {
        expect(entries.some((entry) => String(entry.event).startsWith('provider_config_keys_'))).toBe(false);
        upstreamA.enqueue({ text: 'After the rotation.' });
        await request(rotated.url)
          .post('/api/ai/chat')
          .set(as(adminA))
          .send({ graphKey: GRAPH, message: 'Hello' })
          .expect(200);
        expect(upstreamA.requests[0].apiKeySha256).toBe(apiKeySha256(KEY_A));
      } finally {
        await rotated.close();
      }
    });
  });
});

function readSealed(dataDir: string): string {
  const db = new Database(path.join(dataDir, SQLITE_FILE_NAME), { readonly: true });
  try {
    return (db.prepare('SELECT api_key_secret FROM ai_provider_configs').get() as { api_key_secret: string })
      .api_key_secret;
  } finally {
    db.close();
  }
}
