import { build } from 'esbuild';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import jwt from 'jsonwebtoken';
import { chromium, type BrowserContext } from 'playwright-core';
import request from 'supertest';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A page built on @ai-sdk/react's useChat (client/test/use-chat-page/main.tsx, bundled by esbuild), in Debian's
 * Chromium, against the real service: an application of the AI SDK uses POST /api/ai/ui-chat with no client of ours.
 * The page is served at the service's origin by the browser's request routing (same origin, as an application behind
 * the same gateway would be).
 */
const ROOT = path.resolve(__dirname, '../..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SECRET = 'ui-chat-browser-secret-of-at-least-32-chars!';
const GRAPH = 'nba-workflow';
const editor = jwt.sign({ sub: 'eddie', workspace: 'default', role: 'editor' }, SECRET, { expiresIn: 600 });

describe('useChat of @ai-sdk/react against POST /api/ai/ui-chat (headless Chromium)', () => {
  let llm: ScriptedLlmServer;
  let app: TestApp;
  let profileDir: string;
  let browser: BrowserContext;
  let script: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
    const bundle = await build({
      entryPoints: [path.join(ROOT, 'client/test/use-chat-page/main.tsx')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: ['es2020', 'chrome100'],
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'warning',
    });
    script = bundle.outputFiles[0].text;
    llm = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...llm.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      AUTH_MODE: 'jwt',
      JWT_SECRET: SECRET,
    });
    profileDir = mkdtempSync(path.join(tmpdir(), 'chromium-profile-'));
    browser = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    await browser.route(`${app.url}/use-chat/**`, (route) => {
      const isScript = route.request().url().endsWith('/page.js');
      return route.fulfill({
        status: 200,
        contentType: isScript ? 'text/javascript' : 'text/html',
        body: isScript
          ? script
          : '<!doctype html><html><body><div id="root"></div><script type="module" src="page.js"></script></body></html>',
      });
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await llm?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  });

  it('streams an answer, shows a proposal for approval, and applies it once after the click', async () => {
    llm.enqueue(
      {
        text: 'I propose a log node.',
        toolCalls: [
          {
            id: 'call_browser',
            name: 'propose_create_node',
            arguments: {
              nodeKey: 'browser-log',
              typeKey: 'log-node',
              sheet: '0',
              posX: 820,
              posY: 300,
              reason: 'Log the fetch errors',
            },
          },
        ],
      },
      { text: 'The log node is in place.' },
    );
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(`${app.url}/use-chat/index.html#graph=${GRAPH}&token=${editor}`);
    await page.getByLabel('Message').fill('Log the fetch errors');
    await page.getByRole('button', { name: 'Send' }).click();

    await page.getByText('I propose a log node.').waitFor();
    await page.locator('.tool[data-state="approval-requested"]').waitFor();
    const before = (await request(app.url).get(`/api/graphs/${GRAPH}`).set('Authorization', `Bearer ${editor}`)).body;
    expect(before.nodes.map((node: { _key: string }) => node._key)).not.toContain('browser-log');

    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('The log node is in place.').waitFor();
    await page.locator('.tool[data-state="output-available"]').waitFor();
    await page.getByText('ready').waitFor();
    // One assistant message: the answer after the approval continued it.
    expect(await page.locator('.message.assistant').count()).toBe(1);
    expect(await page.locator('.error').count()).toBe(0);
    expect(failures).toEqual([]);
    const after = (await request(app.url).get(`/api/graphs/${GRAPH}`).set('Authorization', `Bearer ${editor}`)).body;
    expect(after.nodes.filter((node: { _key: string }) => node._key === 'browser-log')).toHaveLength(1);
    await page.close();
  });
});
