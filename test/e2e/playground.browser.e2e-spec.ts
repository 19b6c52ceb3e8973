import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import request from 'supertest';
import { ScriptedLlmServer } from '../support/scripted-llm-server';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The playground in Debian's Chromium (playwright-core, no downloaded browser) against the real service
 * and the scripted LLM server: what a person sees and clicks. Each test leaves a screenshot in
 * test-artifacts/playground/; with UPDATE_DOCS_SCREENSHOT=1 the one of a highlighted proposal becomes
 * docs/playground.png (the README's).
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

/** A batch that adds a node and its edge, changes a node, moves one and deletes one (its edge goes with it). */
const proposeBatch = {
  id: 'call_batch',
  name: 'propose_batch',
  arguments: {
    reason: 'Send the failures of fetch-api to a dedicated log node, keep only regular players, tidy the end',
    actions: [
      { type: 'create_node', nodeKey: 'log-failures', typeKey: 'log-node', sheet: '0', posX: 820, posY: 420 },
      {
        type: 'create_edge',
        edgeKey: 'fetch-api-to-log-failures',
        sourceKey: 'fetch-api',
        sourceHandle: 'R-1',
        targetKey: 'log-failures',
        targetHandle: 'L-0',
        sheet: '0',
      },
      { type: 'update_node', nodeKey: 'filter-active', changes: { 'data.minGames': 20 } },
      { type: 'move_node', nodeKey: 'return', posX: 1480, posY: 340 },
      { type: 'delete_node', nodeKey: 'error-handler' },
    ],
  },
};

type PageDocument = { querySelector(selector: string): { textContent: string | null } | null };
/** The page's getComputedStyle (this program is compiled without the DOM library). */
type PageWindow = { getComputedStyle(element: unknown): { stroke: string; borderTopColor: string } };

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

  it('renders Swagger UI at /docs under its Content-Security-Policy, with no violation, and refuses to be framed', async () => {
    const docs = await browser.newPage();
    const violations: string[] = [];
    docs.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    docs.on('pageerror', (error) => violations.push(error.message));
    try {
      const response = await docs.goto(`${app.url}/docs`);
      expect(response?.headers()['x-frame-options']).toBe('DENY');
      expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
      await docs.getByText('Graph AI assistant').first().waitFor();
      await docs.locator('.opblock').first().waitFor();
      expect(violations).toEqual([]);
    } finally {
      await docs.close();
    }
  });

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

  const graphNode = (key: string) => page.locator(`.react-flow__node[data-id="${key}"]`);
  const graphEdge = (key: string) => page.locator(`.react-flow__edge[data-id="${key}"]`);
  const storedGraph = async () =>
    (await request(app.url).get(`/api/graphs/${GRAPH}`).expect(200)).body as {
      nodes: Array<{ _key: string; sheet: string; posX: number; posY: number }>;
      edges: Array<{ _key: string; sheet: string }>;
    };

  it("shows the demo graph's main sheet with every node at its stored position and every edge, and the other sheet on demand", async () => {
    const stored = await storedGraph();
    const main = stored.nodes.filter((node) => node.sheet === '0');
    await graphNode('fetch-api').waitFor();
    await expect(page.locator('.react-flow__node').count()).resolves.toBe(main.length);
    for (const edge of stored.edges.filter((edge) => edge.sheet === '0')) await graphEdge(edge._key).waitFor();
    await expect(page.locator('.react-flow__edge').count()).resolves.toBe(
      stored.edges.filter((edge) => edge.sheet === '0').length,
    );
    // Drawn at its stored position: every node is where posX/posY put it, at the view's one zoom.
    const box = async (key: string) => (await graphNode(key).boundingBox())!;
    const origin = main.find((node) => node._key === 'fetch-api')!;
    const originBox = await box('fetch-api');
    const rootNode = main.find((node) => node._key === 'root')!;
    const zoom = ((await box('root')).x - originBox.x) / (rootNode.posX - origin.posX);
    expect(zoom).toBeGreaterThan(0.1);
    for (const node of main) {
      const drawn = await box(node._key);
      expect([node._key, Math.round(drawn.x - originBox.x), Math.round(drawn.y - originBox.y)]).toEqual([
        node._key,
        Math.round(zoom * (node.posX - origin.posX)),
        Math.round(zoom * (node.posY - origin.posY)),
      ]);
    }
    await expect(graphNode('fetch-api').getAttribute('aria-label')).resolves.toBe('Node fetch-api (API Call)');
    await expect(graphEdge('fetch-api-to-error-handler').getAttribute('aria-label')).resolves.toBe(
      'Edge fetch-api → error-handler "error"',
    );

    // Keyboard: a node takes the focus and Enter selects it; its details show below the graph.
    await graphNode('fetch-api').focus();
    await page.keyboard.press('Enter');
    await page.locator('.pg-details').getByText('fetch-api').waitFor();
    await expect(page.locator('.pg-details').textContent()).resolves.toContain('API Call');

    const sheets = page.getByRole('group', { name: 'Sheets' });
    await expect(sheets.getByRole('button', { name: 'main' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await sheets.getByRole('button', { name: 'data-processing' }).click();
    await graphNode('sort-stats').waitFor();
    await graphNode('disconnected-note').waitFor();
    await expect(page.locator('.react-flow__node').count()).resolves.toBe(
      stored.nodes.filter((node) => node.sheet === '1').length,
    );
    await expect(graphNode('fetch-api').count()).resolves.toBe(0);
  });

  it('highlights a proposed batch on the graph (added, changed, deleted, with a legend); after Approve the graph shows the change', async () => {
    server.enqueue(
      { text: 'Here is a plan in one batch.', toolCalls: [proposeBatch] },
      { text: 'Done: failures now go to log-failures.' },
    );
    // Wide enough for the graph to be read in the README's screenshot.
    await page.setViewportSize({ width: 1600, height: 900 });
    await ask('Replace error-handler by a proper log node and keep only regular players');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();

    const legend = page.getByRole('group', { name: 'Proposed changes' });
    await legend.waitFor();
    await expect(legend.textContent()).resolves.toContain(
      'Proposal: Creates 1 node and 1 edge, changes 1 node, moves 1 node and deletes 1 node on sheet main',
    );
    const count = async (name: string) => legend.locator(`.pg-legend__item--${name} strong`).textContent();
    await expect(count('added')).resolves.toBe('2');
    await expect(count('changed')).resolves.toBe('2');
    await expect(count('deleted')).resolves.toBe('2');
    await expect(
      page.getByRole('group', { name: 'Sheets' }).getByRole('button', { name: 'main, 6 proposed changes' }).count(),
    ).resolves.toBe(1);

    const classes = async (locator: ReturnType<typeof graphNode>) => (await locator.getAttribute('class'))!.split(' ');
    // Created: a ghost at its proposed position, and its edge.
    await graphNode('log-failures').waitFor();
    await expect(classes(graphNode('log-failures'))).resolves.toEqual(
      expect.arrayContaining(['pg-node--added', 'pg-node--ghost']),
    );
    await expect(graphNode('log-failures').textContent()).resolves.toContain('New');
    await expect(classes(graphEdge('fetch-api-to-log-failures'))).resolves.toContain('pg-edge--added');
    // Changed, moved (a ghost where it would go), deleted (with its edge).
    await expect(classes(graphNode('filter-active'))).resolves.toContain('pg-node--changed');
    await expect(classes(graphNode('return'))).resolves.toContain('pg-node--changed');
    await expect(classes(graphNode('moved:return'))).resolves.toEqual(
      expect.arrayContaining(['pg-node--changed', 'pg-node--ghost']),
    );
    await expect(classes(graphNode('error-handler'))).resolves.toContain('pg-node--deleted');
    await expect(classes(graphEdge('fetch-api-to-error-handler'))).resolves.toContain('pg-edge--deleted');
    await expect(classes(graphEdge('root-to-fetch-api'))).resolves.not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^pg-edge--/)]),
    );
    // The colours are really drawn: three distinct ones, and none of them the plain edge's grey.
    const stroke = (key: string) =>
      graphEdge(key)
        .locator('.react-flow__edge-path')
        .evaluate((path) => (globalThis as unknown as PageWindow).getComputedStyle(path).stroke);
    const border = (key: string) =>
      graphNode(key).evaluate(
        (element) => (globalThis as unknown as PageWindow).getComputedStyle(element).borderTopColor,
      );
    await expect(stroke('fetch-api-to-log-failures')).resolves.toBe('rgb(26, 127, 55)');
    await expect(stroke('fetch-api-to-error-handler')).resolves.toBe('rgb(207, 34, 46)');
    await expect(stroke('root-to-fetch-api')).resolves.toBe('rgb(140, 149, 159)');
    await expect(border('log-failures')).resolves.toBe('rgb(26, 127, 55)');
    await expect(border('filter-active')).resolves.toBe('rgb(154, 103, 0)');
    await expect(border('error-handler')).resolves.toBe('rgb(207, 34, 46)');

    const screenshot = path.join(ARTIFACTS, 'proposal-on-graph.png');
    await page.screenshot({ path: screenshot });
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') copyFileSync(screenshot, path.join(ROOT, 'docs/playground.png'));

    // What the proposal does to one node, read from the keyboard.
    await page.keyboard.press('Escape');
    await expect(dialog.count()).resolves.toBe(0);
    await graphNode('filter-active').focus();
    await page.keyboard.press('Enter');
    await page.locator('.pg-details').getByText('data.minGames → 20').waitFor();

    await page.getByRole('button', { name: 'Review' }).click();
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Done: failures now go to log-failures.').waitFor();
    // The graph is loaded again after ACTIONS_EXECUTED: the new node is a plain node, the deleted one is gone.
    await graphNode('error-handler').waitFor({ state: 'detached' });
    await expect(classes(graphNode('log-failures'))).resolves.not.toContain('pg-node--ghost');
    await expect(classes(graphEdge('fetch-api-to-log-failures'))).resolves.not.toContain('pg-edge--added');
    await expect(graphNode('moved:return').count()).resolves.toBe(0);
    await expect(legend.count()).resolves.toBe(0);
    const stored = await storedGraph();
    const returnNode = stored.nodes.find((node) => node._key === 'return')!;
    expect([returnNode.posX, returnNode.posY]).toEqual([1480, 340]);
  });

  const createNodeAction = (nodeKey: string, posX: number) => ({
    type: 'create_node',
    nodeKey,
    typeKey: 'log-node',
    sheet: '0',
    posX,
    posY: 620,
  });

  it('approves 2 of the 3 items of a batch: the item left out is drawn faded, and only the 2 approved reach the graph', async () => {
    server.enqueue(
      {
        text: 'Three log nodes.',
        toolCalls: [
          {
            id: 'call_three',
            name: 'propose_batch',
            arguments: {
              reason: 'One log node per stage',
              actions: [createNodeAction('log-a', 300), createNodeAction('log-b', 560), createNodeAction('log-c', 820)],
            },
          },
        ],
      },
      { text: 'Added log-a and log-c.' },
    );
    await ask('Add a log node per stage');
    const dialog = page.getByRole('dialog');
    const checkbox = (key: string) => dialog.getByRole('checkbox', { name: new RegExp(`"${key}"`) });
    await checkbox('log-b').waitFor();
    await expect(dialog.getByRole('checkbox').count()).resolves.toBe(3);
    await checkbox('log-b').uncheck();
    // The graph shows the choice: log-b stays a ghost, faded and labelled declined; the others accepted.
    const classes = async (key: string) => (await graphNode(key).getAttribute('class'))!.split(' ');
    await page.locator('.react-flow__node.pg-node--declined[data-id="log-b"]').waitFor();
    await expect(graphNode('log-b').textContent()).resolves.toContain('New · declined');
    await expect(classes('log-a')).resolves.toEqual(expect.arrayContaining(['pg-node--ghost', 'pg-node--accepted']));
    await page.screenshot({ path: path.join(ARTIFACTS, 'batch-items-reviewed.png') });

    await dialog.getByRole('button', { name: 'Approve 2 of 3' }).click();
    await page.getByText('Added log-a and log-c.').waitFor();
    await assistant().getByText('Applied 2 of 3 changes.').waitFor();
    await expect(assistant().locator('.gai-outcome__declined').textContent()).resolves.toContain('"log-b" (declined)');
    // Loaded again after ACTIONS_EXECUTED: two plain nodes, no trace of the declined one.
    await page.locator('.react-flow__node[data-id="log-a"]:not(.pg-node--ghost)').waitFor();
    await expect(classes('log-c')).resolves.not.toContain('pg-node--ghost');
    await expect(graphNode('log-b').count()).resolves.toBe(0);
    const stored = (await storedGraph()).nodes.map((node) => node._key);
    expect(['log-a', 'log-b', 'log-c'].map((key) => stored.includes(key))).toEqual([true, false, true]);
    const sent = server.requests[1].body.messages as Array<{ role: string; tool_call_id?: string; content: string }>;
    expect(JSON.parse(sent.find((message) => message.tool_call_id === 'call_three')!.content)).toMatchObject({
      status: 'approved',
      appliedItems: [{ itemId: 'i1' }, { itemId: 'i3' }],
      declinedItems: [{ itemId: 'i2' }],
    });
  });

  /** An edit of a node by someone else, saved through the change feed (as the Nodius sync server sends it). */
  const editThroughFeed = async (key: string, changes: Record<string, unknown>) => {
    const current = (await storedGraph()).nodes.find((node) => node._key === key)!;
    await request(app.url)
      .post(`/api/graphs/${GRAPH}/changes`)
      .send({ upsertNodes: [{ ...current, ...changes }], saved: true })
      .expect(202);
  };
  const updateFilter = (id: string, minGames: number) => ({
    id,
    name: 'propose_update_node',
    arguments: { nodeKey: 'filter-active', changes: { 'data.minGames': minGames }, reason: 'Only regular players' },
  });

  it('shows a proposal made stale by an edit through the change feed as stale, and never applies it', async () => {
    server.enqueue(
      { text: 'I propose a stricter filter.', toolCalls: [updateFilter('call_stale', 30)] },
      { text: 'The graph changed: here is a new proposal.', toolCalls: [updateFilter('call_again', 40)] },
      { text: 'Not applied: filter-active changed again meanwhile.' },
    );
    await ask('Keep only regular players');
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Approve' }).waitFor();
    await expect(dialog.getByRole('alert').count()).resolves.toBe(0);

    // Someone else edits the very node it changes: the page, loading the graph again while the proposal waits, sees it.
    await editThroughFeed('filter-active', { data: { minGames: 12, edited: 'by a human' } });
    await dialog
      .getByRole('alert')
      .getByText(/^Stale: the graph changed since this proposal was made/)
      .waitFor();
    await expect(dialog.getByRole('alert').textContent()).resolves.toContain('Node "filter-active" was changed');
    await expect(dialog.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
    await expect(page.getByRole('group', { name: 'Proposed changes' }).textContent()).resolves.toContain(
      'Stale proposal',
    );
    await page.locator('.react-flow__node.pg-node--stale[data-id="filter-active"]').waitFor();
    await expect(graphNode('filter-active').textContent()).resolves.toContain('changed since');
    await page.screenshot({ path: path.join(ARTIFACTS, 'stale-proposal.png') });

    // Sent back: the model is told why, and proposes again on the graph as it is.
    await dialog.getByRole('button', { name: 'Ask for a new proposal' }).click();
    await page.getByText('The graph changed: here is a new proposal.').waitFor();
    const sent = server.requests[1].body.messages as Array<{ role: string; tool_call_id?: string; content: string }>;
    expect(JSON.parse(sent.find((message) => message.tool_call_id === 'call_stale')!.content)).toMatchObject({
      status: 'rejected',
      feedback: expect.stringContaining('Node "filter-active" was changed'),
    });

    // The new proposal, approved by a page that did not see the next edit: the service refuses it as stale.
    await dialog.getByRole('button', { name: 'Approve' }).waitFor();
    await page.route(`**/api/graphs/${GRAPH}`, (route) => route.abort());
    await editThroughFeed('filter-active', { data: { minGames: 15 } });
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Not applied: filter-active changed again meanwhile.').waitFor();
    await assistant().getByText('Not applied: the graph changed since this proposal was made.').waitFor();
    await expect(assistant().locator('.gai-outcome--stale').textContent()).resolves.toContain(
      'Node "filter-active" was changed',
    );
    const filter = (await storedGraph()).nodes.find((node) => node._key === 'filter-active') as unknown as {
      data: { minGames: number };
    };
    expect(filter.data.minGames).toBe(15);
  });

  it("undoes an answer's change from the chat and the graph goes back; Put back applies it again", async () => {
    server.enqueue(
      {
        text: 'A node for the retries.',
        toolCalls: [
          {
            ...proposeLogNode,
            id: 'call_retries',
            arguments: { ...proposeLogNode.arguments, nodeKey: 'log-retries', posY: 760 },
          },
        ],
      },
      { text: 'Added log-retries.' },
    );
    await ask('Add a node for the retries');
    await page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Added log-retries.').waitFor();
    await page.locator('.react-flow__node[data-id="log-retries"]:not(.pg-node--ghost)').waitFor();
    const nodesBefore = (await storedGraph()).nodes.length;

    const answer = page.locator('.gai-message--assistant', { hasText: 'Added log-retries.' });
    await answer.getByText('Applied: 1 change').waitFor();
    await answer.getByRole('button', { name: 'Undo the changes of this answer' }).click();
    await page
      .getByRole('status')
      .getByText(/^Reverted 1 operation/)
      .waitFor();
    await graphNode('log-retries').waitFor({ state: 'detached' });
    expect((await storedGraph()).nodes.map((node) => node._key)).not.toContain('log-retries');
    expect((await storedGraph()).nodes.length).toBe(nodesBefore - 1);
    await answer.getByText('Its changes were undone').waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, 'undone.png') });

    // The revert is an event of the thread, with a button to undo it.
    const reverted = page.locator('.gai-event', { hasText: 'Reverted 1 operation' });
    await reverted.getByRole('button', { name: 'Put back what this undo reverted' }).click();
    await page.locator('.react-flow__node[data-id="log-retries"]').waitFor();
    expect((await storedGraph()).nodes.map((node) => node._key)).toContain('log-retries');
    await answer.getByRole('button', { name: 'Undo the changes of this answer' }).waitFor();
  });

  it('lays out a sheet whose nodes have no positions of their own, with the layout module loaded on demand', async () => {
    const handles = {
      L: { position: 'fix', point: [{ id: 'L-0', type: 'in', accept: 'any' }] },
      R: { position: 'fix', point: [{ id: 'R-0', type: 'out', accept: 'any' }] },
    };
    const unplaced = (key: string) => ({
      _key: key,
      graphKey: 'unplaced',
      type: 'html',
      sheet: '0',
      posX: 0,
      posY: 0,
      handles,
    });
    const link = (source: string, target: string) => ({
      _key: `${source}-to-${target}`,
      graphKey: 'unplaced',
      sheet: '0',
      source,
      sourceHandle: 'R-0',
      target,
      targetHandle: 'L-0',
    });
    await request(app.url)
      .put('/api/graphs/unplaced')
      .send({
        graph: { _key: 'unplaced', workspace: 'default', name: 'Never laid out', sheetsList: { '0': 'main' } },
        nodes: ['start', 'middle', 'end', 'aside'].map(unplaced),
        edges: [link('start', 'middle'), link('middle', 'end'), link('start', 'aside')],
        nodeConfigs: [],
      })
      .expect(200);
    const chunk = page.waitForRequest((sent) => /\/playground\/chunks\/auto-layout-[^/]+\.js$/.test(sent.url()));
    await page.goto(`${app.url}/playground/?graph=unplaced`);
    await chunk;
    await graphNode('end').waitFor();
    await expect(page.locator('.react-flow__edge').count()).resolves.toBe(3);
    const x = async (key: string) => (await graphNode(key).boundingBox())!.x;
    expect(await x('start')).toBeLessThan(await x('middle'));
    expect(await x('middle')).toBeLessThan(await x('end'));
    const corners = await Promise.all(
      ['start', 'middle', 'end', 'aside'].map(async (key) => JSON.stringify(await graphNode(key).boundingBox())),
    );
    expect(new Set(corners).size).toBe(4);
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
