import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Role } from '../../auth/principal';
import type { Locale } from '../../config/app-config';
import { openSqliteDatabase } from '../../database/sqlite/sqlite-database.opener';
import { DEMO_GRAPH_KEY, DEMO_WORKSPACE, nbaWorkflowDemo } from '../../graph/demo/nba-workflow.demo';
import { GraphDataSourceFactory } from '../../graph/graph-data-source.factory';
import { MutableGraphDataSource } from '../../graph/mutable-graph-data-source';
import { SqliteGraphStore } from '../../graph/sqlite/sqlite-graph.store';
import { configureLogging } from '../../observability/logger';
import { loadSystemPromptContext } from './system-prompt-context';
import { buildSystemPrompt } from './system-prompt.builder';
import { SystemPromptCache } from './system-prompt.cache';

// Counts the prompts built without changing them.
jest.mock('./system-prompt.builder', () => {
  const actual = jest.requireActual<typeof import('./system-prompt.builder')>('./system-prompt.builder');
  return { ...actual, buildSystemPrompt: jest.fn(actual.buildSystemPrompt) };
});
const builds = buildSystemPrompt as jest.MockedFunction<typeof buildSystemPrompt>;
const { buildSystemPrompt: buildUncounted } = jest.requireActual<typeof import('./system-prompt.builder')>('./system-prompt.builder');

const ROLES: Role[] = ['viewer', 'editor', 'admin'];
const LOCALES: Locale[] = ['en', 'fr'];

describe(SystemPromptCache.name, () => {
  let dataDir: string;
  let store: SqliteGraphStore;
  let source: MutableGraphDataSource;

  /** What ChatService hands the cache: the store's (shared, frozen) documents. */
  async function documents() {
    return { graph: (await source.getGraph(DEMO_GRAPH_KEY))!, configs: await source.getNodeConfigs() };
  }

  beforeEach(async () => {
    configureLogging({ level: 'error' });
    dataDir = mkdtempSync(path.join(tmpdir(), 'system-prompt-cache-'));
    store = new SqliteGraphStore(openSqliteDatabase(dataDir));
    await store.importGraph(DEMO_WORKSPACE, nbaWorkflowDemo);
    source = new GraphDataSourceFactory(store).forWorkspace(DEMO_WORKSPACE);
    builds.mockClear();
  });

  afterEach(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives the prompt buildSystemPrompt gives, for every role and locale', async () => {
    const cache = new SystemPromptCache();
    const { graph, configs } = await documents();
    const context = await loadSystemPromptContext(source, DEMO_GRAPH_KEY);
    for (const role of ROLES) {
      for (const locale of LOCALES) {
        expect(cache.promptFor(graph, configs, role, locale)).toBe(buildUncounted(context, role, locale));
      }
    }
  });

  it('builds each prompt once while the graph and the configs stay as they are', async () => {
    const cache = new SystemPromptCache();
    for (let question = 0; question < 3; question++) {
      const { graph, configs } = await documents();
      for (const role of ROLES) for (const locale of LOCALES) cache.promptFor(graph, configs, role, locale);
    }
    expect(builds).toHaveBeenCalledTimes(ROLES.length * LOCALES.length);
  });

  it('builds it again when the graph document or the node configs change', async () => {
    const cache = new SystemPromptCache();
    const before = await documents();
    const original = cache.promptFor(before.graph, before.configs, 'editor', 'en');

    await store.importGraph(DEMO_WORKSPACE, { ...nbaWorkflowDemo, graph: { ...nbaWorkflowDemo.graph, name: 'Renamed workflow' }, nodeConfigs: [] });
    const renamed = await documents();
    const afterRename = cache.promptFor(renamed.graph, renamed.configs, 'editor', 'en');
    expect(afterRename).toContain('Renamed workflow');
    expect(afterRename).not.toBe(original);

    const [first, ...others] = nbaWorkflowDemo.nodeConfigs;
    await store.importGraph(DEMO_WORKSPACE, {
      ...nbaWorkflowDemo,
      graph: { ...nbaWorkflowDemo.graph, name: 'Renamed workflow' },
      nodeConfigs: [{ ...first, displayName: 'Freshly renamed type' }, ...others],
    });
    const retyped = await documents();
    expect(retyped.graph).not.toBe(renamed.graph);
    const afterRetype = cache.promptFor(retyped.graph, retyped.configs, 'editor', 'en');
    expect(afterRetype).toContain('"Freshly renamed type"');
    expect(builds).toHaveBeenCalledTimes(3);
  });

  it('never caches documents that are not frozen: a changed document gives its new prompt', async () => {
    const cache = new SystemPromptCache();
    const graph = structuredClone(nbaWorkflowDemo.graph);
    const configs = structuredClone(nbaWorkflowDemo.nodeConfigs);
    const first = cache.promptFor(graph, configs, 'viewer', 'en');
    graph.name = 'Changed in place';
    const second = cache.promptFor(graph, configs, 'viewer', 'en');
    expect(first).not.toContain('Changed in place');
    expect(second).toContain('Changed in place');
    expect(builds).toHaveBeenCalledTimes(2);
  });
});
