import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Rich messages in the playground, in Debian's Chromium against the real service and the scripted LLM server: blocks
 * written in the composer and the canvas selection attached as chips, the service's confirmation of a large prompt
 * (AI_CONFIRM_ABOVE_TOKENS is set low, so every question asks), the DATA_ADDED results and "What the AI sees".
 */
const ROOT = path.resolve(__dirname, '../..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.join(ROOT, 'test-artifacts/playground');
const GRAPH = 'nba-workflow';

describe('Playground rich messages (headless Chromium, end to end)', () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  let assetsDir: string;
  let profileDir: string;
  let browser: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
    assetsDir = mkdtempSync(path.join(tmpdir(), 'playground-build-'));
    execFileSync(process.execPath, [
      path.join(ROOT, 'client/scripts/build.mjs'),
      '--only',
      'playground',
      '--playground-out',
      assetsDir,
    ]);
    server = await ScriptedLlmServer.start();
    app = await startTestApp({
      ...server.providerEnv('openai'),
      EMBEDDING_PROVIDER: 'local',
      AI_MAX_RETRIES: '0',
      AI_CONFIRM_ABOVE_TOKENS: '1000',
      PLAYGROUND_DIR: assetsDir,
    });
    profileDir = mkdtempSync(path.join(tmpdir(), 'chromium-profile-'));
    browser = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
      viewport: { width: 1280, height: 800 },
    });
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await server?.close();
    for (const dir of [assetsDir, profileDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    server.reset();
    page = await browser.newPage();
    await page.goto(`${app.url}/playground/?graph=${GRAPH}`);
    await page.getByText('Connected').waitFor();
  });
  afterEach(async () => {
    await page.screenshot({ path: path.join(ARTIFACTS, 'rich-message.png') });
    await page.close();
  });

  it('attaches a node type and the canvas selection, confirms the large prompt, and shows each block’s result', async () => {
    server.enqueue({ text: 'fetch-api fails on timeouts; filter-active keeps regular players.' });
    await page.locator('.react-flow__node[data-id="filter-active"]').click();
    await page.getByRole('button', { name: 'Attach node filter-active to the message' }).click();
    const field = page.getByLabel('Message');
    await field.fill('Why does @fetch-api fail, and could /use api-call help?');
    const chips = page.getByLabel('Attached blocks');
    await expect(chips.textContent()).resolves.toBe('pointer · fetch-apiuse · api-callpointer · filter-active×');
    await field.press('Enter');

    const dialog = page.getByRole('dialog');
    await dialog.getByText('Send this large question?').waitFor();
    await expect(dialog.locator('.gai-question').textContent()).resolves.toMatch(
      /This question is large: its prompt is about [\d,]+ tokens \(about \$[\d.]+\), over the limit set for this service\. Send it\?/,
    );
    expect(server.requests).toHaveLength(0);
    await dialog.getByRole('button', { name: 'Yes' }).click();
    await page.getByText('fetch-api fails on timeouts; filter-active keeps regular players.').waitFor();

    const user = page.locator('.gai-message--user').last();
    await expect(user.textContent()).resolves.toBe(
      'Why does pointer · fetch-api fail, and could use · api-call help?pointer · filter-active',
    );
    const event = page.locator('.gai-event[data-event="DATA_ADDED"]').last();
    for (const label of [
      'block 1 pointer node fetch-api',
      'block 2 use node type api-call',
      'block 3 pointer node filter-active',
    ])
      await event.getByText(`✓ ${label}`).waitFor();
    await expect(chips.count()).resolves.toBe(0);

    await page.getByRole('button', { name: 'What the AI sees' }).click();
    const attached = page.getByRole('region', { name: 'Attached to the question' });
    await attached.getByText('block 2 use node type api-call').waitFor();
    await expect(attached.textContent()).resolves.toMatch(/configuration; data schema of api-call/);

    const sent = server.requests[0].body.messages as Array<{ role: string; content: string }>;
    expect(sent.find((message) => message.role === 'user')?.content).toBe(
      'Why does [block 1 pointer: fetch-api] fail, and could [block 2 use: api-call] help? [block 3 pointer: filter-active]',
    );
    expect(sent.some((message) => message.content.includes('## Block 2 use: node type api-call'))).toBe(true);
  });
});
