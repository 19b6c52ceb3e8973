import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import request from 'supertest';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The playground in Debian's Chromium (playwright-core, no downloaded browser) against the real service
 * and the scripted LLM server: what a person sees and clicks. Each test leaves a screenshot in
 * test-artifacts/playground/.
 */
const ROOT = path.resolve(__dirname, '../..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.join(ROOT, 'test-artifacts/playground');
const GRAPH = 'nba-workflow';
const proposeLogNode = {
  id: 'call_create',
  name: 'propose_create_node',
  arguments: {
    nodeKey: 'log-errors',
    typeKey: 'log-node',
    sheet: '0',
    posX: 820,
    posY: 300,
    reason: 'Log the failures of fetch-api',
  },
};

type PageDocument = { querySelector(selector: string): { textContent: string | null } | null };

/** Runs in the page (a function, not a string: the page's CSP forbids eval): the answer shows at least `min` characters. */
function answerHasAtLeast(min: number): boolean {
  const { document } = globalThis as unknown as { document: PageDocument };
  return (document.querySelector('.gai-message--assistant .gai-message__text')?.textContent ?? '').length >= min;
}

describe('Playground (headless Chromium, end to end)', () => {
  let server: ScriptedLlmServer;
  let app: TestApp;
  let assetsDir: string;
  let profileDir: string;
  let browser: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
    // The page as `npm run build` makes it, into a directory of this run.
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
      PLAYGROUND_DIR: assetsDir,
    });
    profileDir = mkdtempSync(path.join(tmpdir(), 'chromium-profile-'));
    browser = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
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
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(`${app.url}/playground/?graph=${GRAPH}`);
    await page.getByText('Connected').waitFor();
    await page.getByText(/\d+ nodes · \d+ edges/).waitFor();
    expect(failures).toEqual([]);
  });
  afterEach(async () => {
    await page.screenshot({
      path: path.join(
        ARTIFACTS,
        `${expect
          .getState()
          .currentTestName?.replace(/[^a-z0-9]+/gi, '-')
          .slice(0, 80)}.png`,
      ),
    });
    await page.close();
  });

  const ask = async (question: string) => {
    await page.getByLabel('Message').fill(question);
    await page.getByLabel('Message').press('Enter');
  };
  const assistant = () => page.locator('.gai-message--assistant').last();

  it('streams a question into the panel with its tool badge and usage, lists the thread, and shows what the AI sees', async () => {
    const answer =
      'fetch-api calls the NBA stats API for the active players of the season; its errors go to error-handler.';
    server.enqueue(
      { toolCalls: [{ id: 'call_read', name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' } }] },
      { text: answer, chunkSize: 4, delayMs: 15 },
    );
    await ask('What does fetch-api do?');
    // Mid-stream: part of the text is there and the button is Stop.
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    await page.waitForFunction(answerHasAtLeast, 1);
    const partial = await assistant().locator('.gai-message__text').textContent();
    expect(answer.startsWith(partial!.replace(/^\n+/, ''))).toBe(true);
    expect(partial!.length).toBeLessThan(answer.length);

    await assistant()
      .getByText(/tokens \(.* in, .* out\) · \$/)
      .waitFor();
    expect((await assistant().locator('.gai-message__text').textContent())?.trim()).toBe(answer);
    await expect(assistant().locator('.gai-tool').textContent()).resolves.toContain('read_node_detail');
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await page.getByRole('button', { name: /What does fetch-api do\?/ }).waitFor();

    await page.getByRole('button', { name: 'What the AI sees' }).click();
    const drawer = page.getByRole('complementary', { name: 'What the AI sees' });
    await drawer.getByRole('cell', { name: 'fetch-api', exact: true }).waitFor();
    await expect(drawer.locator('.pg-toon').textContent()).resolves.toContain('RELEVANT NODES');
  });

  it('shows a proposed node readably in the modal; Approve applies it, and it is in GET /api/graphs/:graphKey', async () => {
    server.enqueue(
      { text: 'Failures are not logged; I propose a log node.', toolCalls: [proposeLogNode] },
      { text: 'Done: log-errors now logs the failures.' },
    );
    await ask('Does fetch-api log its errors? If not, add a node for it.');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toContain('Creates 1 node on sheet main');
    await dialog.getByText('New log-node node "log-errors"').waitFor();
    await expect(dialog.locator('.gai-preview__reason').textContent()).resolves.toBe(
      'Why: Log the failures of fetch-api',
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'approval-modal.png') });

    await dialog.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Done: log-errors now logs the failures.').waitFor();
    await expect(dialog.count()).resolves.toBe(0);
    await page.getByText(/propose_create_node · approved/).waitFor();
    const graph = await request(app.url).get(`/api/graphs/${GRAPH}`).expect(200);
    expect(graph.body.nodes.find((node: { _key: string }) => node._key === 'log-errors')).toMatchObject({
      type: 'log-node',
      sheet: '0',
    });
  });

  it("shows the model's question with its options; clicking one answers it, and the model receives that answer", async () => {
    server.enqueue(
      {
        text: 'Which season?',
        toolCalls: [
          {
            id: 'call_ask',
            name: 'ask_user',
            arguments: { kind: 'choice', question: 'Which season should I keep?', options: ['2023-24', '2024-25'] },
          },
        ],
      },
      { text: 'Keeping the 2024-25 season.' },
    );
    await ask('Filter the players of one season');
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Which season should I keep?').waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'question-modal.png') });

    await dialog.getByRole('button', { name: '2024-25' }).click();
    await page.getByText('Keeping the 2024-25 season.').waitFor();
    await expect(dialog.count()).resolves.toBe(0);
    const sent = server.requests[1].body.messages as Array<{ role: string; tool_call_id?: string; content: string }>;
    expect(JSON.parse(sent.find((message) => message.tool_call_id === 'call_ask')!.content)).toEqual({
      status: 'answered',
      answer: '2024-25',
    });
  });

  it('Stop ends a long stream and keeps the partial text, in the panel and in the thread', async () => {
    const full = 'This answer goes on and on about every node of the graph '.repeat(40);
    server.enqueue({ text: full, chunkSize: 6, hangAfterChunks: 12 });
    await ask('Describe every node in detail');
    await page.waitForFunction(answerHasAtLeast, 60);
    await page.getByRole('button', { name: 'Stop' }).click();
    await assistant().getByText('Stopped').waitFor();
    await page.getByRole('button', { name: 'Send' }).waitFor();
    const shown = (await assistant().locator('.gai-message__text').textContent()) ?? '';
    expect(shown.length).toBeGreaterThanOrEqual(60);
    expect(shown.length).toBeLessThan(full.length);
    expect(full.startsWith(shown)).toBe(true);

    const threads = await request(app.url).post('/api/ai/threads').send({ graphKey: GRAPH }).expect(200);
    const thread = await request(app.url).get(`/api/ai/thread/${threads.body[0].threadId}`).expect(200);
    expect(thread.body.messages[thread.body.messages.length - 1]).toMatchObject({
      role: 'assistant',
      content: shown,
      aborted: true,
    });
  });

  it('shows Retry on a retryable error, and Retry gets the answer', async () => {
    server.enqueue({ error: { status: 503 } }, { text: 'Recovered: the graph has 9 nodes on two sheets.' });
    await ask('Summarize the graph');
    const retry = page.getByRole('button', { name: 'Retry' });
    await retry.waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/.+/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'retry-offered.png') });
    await retry.click();
    await page.getByText('Recovered: the graph has 9 nodes on two sheets.').waitFor();
    await expect(retry.count()).resolves.toBe(0);
    await expect(page.locator('.gai-message--user').count()).resolves.toBe(1);
  });
});
