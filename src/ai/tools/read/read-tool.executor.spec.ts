import { InMemoryGraphDataSource } from '../../../../test/support/in-memory-graph-data-source';
import { DEMO_GRAPH_KEY, DEMO_WORKSPACE, nbaWorkflowDemo } from '../../../graph/demo/nba-workflow.demo';
import { GraphDocument } from '../../../graph/graph.types';
import { LogEntry } from '../../../observability/log-entry';
import { resetLogSink, setLogSink } from '../../../observability/logger';
import { JsonSchemaValidator } from '../json-schema.validator';
import { ReadToolExecutor } from './read-tool.executor';
import { READ_TOOL_REGISTRY } from './read-tool.registry';

type Result = Record<string, any>;

function executorFor(document: GraphDocument = nbaWorkflowDemo, limits = {}) {
  const source = new InMemoryGraphDataSource(DEMO_WORKSPACE, [document]);
  return { source, executor: new ReadToolExecutor(source, DEMO_GRAPH_KEY, limits) };
}

async function run(toolName: string, args: unknown, executor = executorFor().executor): Promise<Result> {
  const raw = await executor.execute(toolName, typeof args === 'string' ? args : JSON.stringify(args));
  return JSON.parse(raw) as Result;
}

describe(ReadToolExecutor.name, () => {
  let logs: LogEntry[];
  beforeEach(() => {
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(() => resetLogSink());

  describe('definitions', () => {
    it('offers the 7 read tools as strict JSON-Schema function definitions', () => {
      expect(READ_TOOL_REGISTRY.definitions.map((tool) => tool.function.name)).toEqual([
        'read_graph_overview',
        'search_nodes',
        'explore_neighborhood',
        'read_node_detail',
        'read_node_config',
        'list_available_node_types',
        'list_node_edges',
      ]);
      for (const tool of READ_TOOL_REGISTRY.definitions) {
        expect(tool.type).toBe('function');
        expect(tool.function.description.length).toBeGreaterThan(40);
        expect(tool.function.parameters).toMatchObject({ type: 'object', additionalProperties: false });
        expect(() => new JsonSchemaValidator(tool.function.parameters)).not.toThrow();
      }
    });

    it('requires the arguments docs/retrieval.md lists as required, and only those', () => {
      const required = Object.fromEntries(
        READ_TOOL_REGISTRY.definitions.map((tool) => [tool.function.name, tool.function.parameters.required ?? []]),
      );
      expect(required).toEqual({
        read_graph_overview: [],
        search_nodes: ['query'],
        explore_neighborhood: ['nodeKey'],
        read_node_detail: ['nodeKey'],
        read_node_config: ['typeKey'],
        list_available_node_types: [],
        list_node_edges: ['nodeKey'],
      });
    });
  });

  describe('read_graph_overview', () => {
    it('summarises the graph, its sheets and node types', async () => {
      const result = await run('read_graph_overview', {});
      expect(result.graph).toMatchObject({ key: DEMO_GRAPH_KEY, name: 'NBA stats workflow', category: 'demo' });
      expect(result.totals).toEqual({ nodes: 9, edges: 6 });
      expect(result.sheets).toEqual([
        { id: '0', name: 'main', nodes: 7, edges: 6 },
        { id: '1', name: 'data-processing', nodes: 2, edges: 0 },
      ]);
      expect(result.nodeTypes[0]).toEqual({ type: 'html', builtIn: true, count: 2 });
      expect(result.nodeTypes).toContainEqual({ type: 'api-call', displayName: 'API Call', count: 1 });
    });

    it('accepts the current graph key and refuses any other (no cross-graph reads)', async () => {
      expect((await run('read_graph_overview', { graphKey: DEMO_GRAPH_KEY })).graph.key).toBe(DEMO_GRAPH_KEY);
      const other = await run('read_graph_overview', { graphKey: 'secret-graph' });
      expect(other.error).toMatch(/only; other graphs cannot be read/);
      expect(JSON.stringify(other)).not.toContain('secret-graph"');
    });
  });

  describe('search_nodes', () => {
    it('returns the best matches first with previews', async () => {
      const result = await run('search_nodes', { query: 'fetch api' });
      expect(result.results[0]).toMatchObject({
        key: 'fetch-api',
        type: 'api-call',
        typeName: 'API Call',
        sheet: 'main',
      });
      expect(result.results[0].score).toBeGreaterThan(0);
      expect(result.results[0].process.length).toBeLessThanOrEqual(203);
      expect(result.results[0].data).toContain('api.nba-stats.example');
      expect(result.count).toBe(result.results.length);
    });

    it('filters by sheet id or sheet name and caps the results', async () => {
      const byId = await run('search_nodes', { query: 'players', sheetId: '1' });
      expect(byId.results.map((node: Result) => node.key)).toEqual(['sort-stats']);
      const byName = await run('search_nodes', { query: 'players', sheetId: 'data-processing' });
      expect(byName.sheetId).toBe('1');
      const capped = await run('search_nodes', { query: 'players', maxResults: 2 });
      expect(capped.results).toHaveLength(2);
    });

    it('reports an unknown sheet with the existing ones, and no match with a hint', async () => {
      const sheet = await run('search_nodes', { query: 'x', sheetId: '9' });
      expect(sheet.error).toBe('Sheet "9" does not exist in this graph.');
      expect(sheet.sheets).toEqual([
        { id: '0', name: 'main' },
        { id: '1', name: 'data-processing' },
      ]);
      const none = await run('search_nodes', { query: 'quantum' });
      expect(none).toMatchObject({ count: 0, results: [] });
      expect(none.hint).toBeDefined();
    });
  });

  describe('explore_neighborhood', () => {
    it('lists the nodes around a node with their distance, and the edges between them', async () => {
      const result = await run('explore_neighborhood', { nodeKey: 'fetch-api', maxDepth: 1 });
      expect(result.nodes[0]).toEqual({
        key: 'fetch-api',
        type: 'api-call',
        typeName: 'API Call',
        sheet: 'main',
        distance: 0,
      });
      expect(
        result.nodes
          .slice(1)
          .map((node: Result) => [node.key, node.distance])
          .sort(),
      ).toEqual([
        ['error-handler', 1],
        ['filter-active', 1],
        ['root', 1],
      ]);
      expect(result.edges).toContainEqual({
        key: 'fetch-api-to-filter-active',
        from: 'fetch-api:R-0',
        to: 'filter-active:L-0',
        label: 'success',
        sheet: '0',
      });
    });

    it('follows the direction and depth (default depth 2)', async () => {
      const downstream = await run('explore_neighborhood', { nodeKey: 'fetch-api', direction: 'out' });
      expect(downstream.maxDepth).toBe(2);
      expect(downstream.nodes.map((node: Result) => node.key).sort()).toEqual([
        'display-html',
        'error-handler',
        'fetch-api',
        'filter-active',
      ]);
      const upstream = await run('explore_neighborhood', { nodeKey: 'fetch-api', direction: 'in', maxDepth: 3 });
      expect(upstream.nodes.map((node: Result) => [node.key, node.distance])).toEqual([
        ['fetch-api', 0],
        ['root', 1],
        ['entry-form', 2],
      ]);
    });

    it('caps the listed nodes and says how many more there are', async () => {
      const { executor } = executorFor(nbaWorkflowDemo, { maxNeighborhoodNodes: 2 });
      const result = await run('explore_neighborhood', { nodeKey: 'fetch-api', maxDepth: 3 }, executor);
      expect(result.nodes).toHaveLength(2);
      expect(result.moreNodes).toBe(5);
      expect(result.edges).toEqual([expect.objectContaining({ key: expect.any(String) })]);
    });

    it('reports an unknown node with a hint', async () => {
      const result = await run('explore_neighborhood', { nodeKey: 'fetch_api' });
      expect(result.error).toBe('Node "fetch_api" does not exist in this graph.');
      expect(result.hint).toMatch(/search_nodes/);
    });
  });

  describe('read_node_detail', () => {
    it('returns the whole node: code, data, handles with ids and edges', async () => {
      const result = await run('read_node_detail', { nodeKey: 'fetch-api' });
      expect(result).toMatchObject({
        key: 'fetch-api',
        type: 'api-call',
        typeName: 'API Call',
        sheet: '0',
        sheetName: 'main',
        position: { x: 520, y: 100 },
        size: { width: 240, height: 140 },
        data: { url: 'https://api.nba-stats.example/v1/players', method: 'GET', timeoutMs: 5000 },
        handles: 'L:in(any)#L-0, R:out(object)#R-0, R:out(error)#R-1',
      });
      expect(result.process).toContain('await fetch(');
      expect(result.incomingEdges).toEqual([expect.objectContaining({ from: 'root:R-0', to: 'fetch-api:L-0' })]);
      expect(result.outgoingEdges).toHaveLength(2);
    });

    it('truncates long code and data, saying how long they were', async () => {
      const document = structuredClone(nbaWorkflowDemo);
      Object.assign(document.nodes.find((node) => node._key === 'root') as object, {
        process: 'p'.repeat(10_000),
        data: { blob: 'd'.repeat(5_000) },
      });
      const { executor } = executorFor(document);
      const result = await run('read_node_detail', { nodeKey: 'root' }, executor);
      expect(result.process).toHaveLength(4_003);
      expect(result.processLength).toBe(10_000);
      expect(result.data).toHaveLength(2_003);
      expect(result).toMatchObject({ dataTruncated: true, dataLength: 5_011, builtIn: true });
    });

    it('reports an unknown node', async () => {
      expect((await run('read_node_detail', { nodeKey: 'nope' })).error).toBe(
        'Node "nope" does not exist in this graph.',
      );
    });
  });

  describe('read_node_config', () => {
    it('describes a custom type', async () => {
      expect(await run('read_node_config', { typeKey: 'api-call' })).toEqual({
        key: 'api-call',
        displayName: 'API Call',
        description: 'Calls an HTTP API and outputs the JSON response; failures go to the error output.',
        category: 'network',
        icon: 'globe',
        handles: 'L:in(any)#L-0, R:out(object)#R-0, R:out(error)#R-1',
        size: { width: 240, height: 140 },
      });
    });

    it('describes a built-in type', async () => {
      expect(await run('read_node_config', { typeKey: 'starter' })).toMatchObject({
        key: 'starter',
        builtIn: true,
        handles: 'L:in(any), R:out(any)',
      });
    });

    it('reports an unknown type with the available ones', async () => {
      const result = await run('read_node_config', { typeKey: 'http-request' });
      expect(result.error).toBe('Node type "http-request" does not exist in this workspace.');
      expect(result.availableTypes).toEqual([
        'starter',
        'return',
        'html',
        'entryType',
        'api-call',
        'filter',
        'log-node',
        'transform',
      ]);
    });
  });

  describe('list_available_node_types', () => {
    it('lists the 4 built-in types and the custom types', async () => {
      const result = await run('list_available_node_types', '');
      expect(result.builtIn.map((type: Result) => type.key)).toEqual(['starter', 'return', 'html', 'entryType']);
      expect(result.custom).toEqual([
        expect.objectContaining({ key: 'api-call', displayName: 'API Call', category: 'network' }),
        expect.objectContaining({ key: 'filter', displayName: 'Filter' }),
        expect.objectContaining({ key: 'log-node', displayName: 'Log Node' }),
        expect.objectContaining({ key: 'transform', displayName: 'Transform' }),
      ]);
    });
  });

  describe('list_node_edges', () => {
    it('lists incoming, outgoing or all edges of a node', async () => {
      const all = await run('list_node_edges', { nodeKey: 'fetch-api' });
      expect(all.count).toBe(3);
      expect(all.edges).toContainEqual({
        key: 'fetch-api-to-error-handler',
        from: 'fetch-api:R-1',
        to: 'error-handler:L-0',
        label: 'error',
        sheet: '0',
        direction: 'out',
      });
      const incoming = await run('list_node_edges', { nodeKey: 'fetch-api', direction: 'in' });
      expect(incoming.edges.map((edge: Result) => [edge.key, edge.direction])).toEqual([['root-to-fetch-api', 'in']]);
      const outgoing = await run('list_node_edges', { nodeKey: 'fetch-api', direction: 'out' });
      expect(outgoing.count).toBe(2);
      expect((await run('list_node_edges', { nodeKey: 'disconnected-note' })).edges).toEqual([]);
    });

    it('reports an unknown node', async () => {
      expect((await run('list_node_edges', { nodeKey: 'ghost' })).error).toMatch(/does not exist/);
    });
  });

  describe('errors the model can correct', () => {
    it('an unknown tool', async () => {
      const result = await run('delete_everything', {});
      expect(result.error).toMatch(/^Unknown tool "delete_everything"\. Available tools: read_graph_overview, /);
      expect(result.availableTools).toEqual([...READ_TOOL_REGISTRY.names]);
    });

    it('malformed JSON arguments', async () => {
      const result = await run('read_node_detail', '{"nodeKey": "root"');
      expect(result.error).toMatch(/^The arguments are not valid JSON/);
      expect((await run('read_node_detail', '["root"]')).error).toBe(
        'The arguments must be a JSON object. Call the tool again with a JSON object.',
      );
    });

    it('missing or mistyped arguments', async () => {
      const missing = await run('read_node_detail', {});
      expect(missing.error).toBe('Invalid arguments for read_node_detail: nodeKey is required');
      expect(missing.problems).toEqual([{ path: 'nodeKey', message: 'is required' }]);
      const outOfRange = await run('explore_neighborhood', { nodeKey: 'root', maxDepth: 5, direction: 'up' });
      expect(outOfRange.problems).toEqual([
        { path: 'maxDepth', message: 'must be <= 3' },
        { path: 'direction', message: 'must be one of "in", "out", "any", got "up"' },
      ]);
      expect((await run('search_nodes', { query: '' })).error).toMatch(/query must not be empty/);
      expect((await run('search_nodes', { query: 'x', maxResults: 2.5 })).error).toMatch(
        /maxResults must be an integer/,
      );
    });

    it('ignores unknown arguments and names them: read schemas are not strict (docs/retrieval.md)', async () => {
      const detail = await run('read_node_detail', { nodeKey: 'root', verbose: true });
      expect(detail.error).toBeUndefined();
      expect(detail).toMatchObject({ key: 'root', ignoredArguments: ['verbose'] });
      const search = await run('search_nodes', { query: 'fetch', limit: 1, maxResults: 1 });
      expect(search).toMatchObject({ count: 1, ignoredArguments: ['limit'] });
      const invalid = await run('explore_neighborhood', { nodeKey: 'root', maxDepth: 9, depth: 1 });
      expect(invalid.problems).toEqual([{ path: 'maxDepth', message: 'must be <= 3' }]);
      expect(invalid.ignoredArguments).toEqual(['depth']);
      expect(await run('list_available_node_types', {})).not.toHaveProperty('ignoredArguments');
    });

    it('a store failure, logged without throwing', async () => {
      const { source, executor } = executorFor();
      jest.spyOn(source, 'getNodeByKey').mockRejectedValue(new Error('disk I/O error'));
      const result = await run('read_node_detail', { nodeKey: 'root' }, executor);
      expect(result.error).toMatch(/failed while reading the graph/);
      expect(JSON.stringify(result)).not.toContain('disk I/O');
      expect(logs).toEqual([
        expect.objectContaining({ level: 'warn', event: 'read_tool_failed', toolName: 'read_node_detail' }),
      ]);
    });

    it('a graph deleted since the conversation started', async () => {
      const executor = new ReadToolExecutor(new InMemoryGraphDataSource(DEMO_WORKSPACE, []), DEMO_GRAPH_KEY);
      expect(JSON.parse(await executor.execute('read_node_detail', '{"nodeKey":"root"}')).error).toBe(
        `Graph "${DEMO_GRAPH_KEY}" no longer exists.`,
      );
    });
  });

  it('caps every result to the configured size, keeping valid JSON', async () => {
    const { executor } = executorFor(nbaWorkflowDemo, { resultMaxChars: 600 });
    for (const tool of [
      'read_graph_overview',
      'list_available_node_types',
      'read_node_detail',
      'explore_neighborhood',
    ]) {
      const raw = await executor.execute(
        tool,
        JSON.stringify(tool.includes('node_detail') || tool.includes('explore') ? { nodeKey: 'fetch-api' } : {}),
      );
      expect(raw.length).toBeLessThanOrEqual(600);
    }
    const overview = JSON.parse(await executor.execute('list_available_node_types', '{}'));
    expect(overview._truncated.omittedItems).toBeDefined();
  });

  describe('in French (AI_LOCALE=fr)', () => {
    const french = () =>
      new ReadToolExecutor(new InMemoryGraphDataSource(DEMO_WORKSPACE, [nbaWorkflowDemo]), DEMO_GRAPH_KEY, {}, 'fr');

    it('tells the model what went wrong in French; keys, fields and tool names stay as they are', async () => {
      const unknownNode = await run('read_node_detail', { nodeKey: 'ghost' }, french());
      expect(unknownNode).toEqual({
        error: 'Le node "ghost" n\'existe pas dans ce graph.',
        tool: 'read_node_detail',
        hint: expect.stringMatching(/^Utilise search_nodes pour trouver/),
      });
      expect((await run('search_nodes', { query: 'zzqqxx' }, french())).hint).toMatch(/^Aucun node ne correspond/);
      expect((await run('read_node_detail', '["root"]', french())).error).toMatch(
        /^Les arguments doivent être un objet JSON/,
      );
      expect((await run('read_node_config', { typeKey: 'nope' }, french())).error).toBe(
        'Le type de node "nope" n\'existe pas dans ce workspace.',
      );
      expect((await run('read_graph_overview', { graphKey: 'other' }, french())).error).toMatch(
        /^Cette conversation porte uniquement sur le graph "nba-workflow"/,
      );
    });

    it('describes the built-in node types in French, and says so in French when it cuts a result', async () => {
      const types = await run('list_available_node_types', {}, french());
      expect(types.builtIn.find((type: { key: string }) => type.key === 'starter').description).not.toBe(
        (await run('list_available_node_types', {})).builtIn.find((type: { key: string }) => type.key === 'starter')
          .description,
      );
      const small = new ReadToolExecutor(
        new InMemoryGraphDataSource(DEMO_WORKSPACE, [nbaWorkflowDemo]),
        DEMO_GRAPH_KEY,
        { resultMaxChars: 600 },
        'fr',
      );
      expect(JSON.parse(await small.execute('list_available_node_types', '{}'))._truncated.note).toMatch(
        /^Le résultat était trop long/,
      );
    });
  });
});
