import { InMemoryGraphDataSource } from '../../../test/support/in-memory-graph-data-source';
import { DEMO_GRAPH_KEY, DEMO_WORKSPACE, nbaWorkflowDemo } from '../../graph/demo/nba-workflow.demo';
import { GraphRagRetriever } from '../../rag/graph-rag.retriever';
import { RAG_CONTEXT_PREFIX } from '../../rag/rag-context-prefix';
import { buildContextMessage } from '../../rag/toon-context.encoder';
import { WRITE_TOOL_NAMES } from '../tools/write-tool-name';
import { buildSystemPrompt } from './system-prompt.builder';
import { loadSystemPromptContext, SystemPromptContext } from './system-prompt-context';

const source = () => new InMemoryGraphDataSource(DEMO_WORKSPACE, [nbaWorkflowDemo]);
const demoPromptContext = () => loadSystemPromptContext(source(), DEMO_GRAPH_KEY);

describe(buildSystemPrompt.name, () => {
  it('describes the graph: key, name, description and sheets', async () => {
    const prompt = buildSystemPrompt(await demoPromptContext(), 'editor');
    expect(prompt).toMatch(/^You are an AI assistant specialised in Nodius workflows/);
    expect(prompt).toContain('- Key: nba-workflow');
    expect(prompt).toContain('- Name: NBA stats workflow');
    expect(prompt).toContain('- Description: Fetches NBA player stats from an API');
    expect(prompt).toContain('- Sheets (id: name): 0: main, 1: data-processing');
  });

  it('documents the 4 built-in types and lists the custom types with their handles, sorted', async () => {
    const prompt = buildSystemPrompt(await demoPromptContext(), 'viewer');
    for (const type of ['starter', 'return', 'html', 'entryType'])
      expect(prompt).toMatch(new RegExp(`^- ${type}: `, 'm'));
    expect(prompt).toContain(
      '- api-call "API Call" [network]: Calls an HTTP API and outputs the JSON response; failures go to the error output. (handles: L:in(any), R:out(object), R:out(error))',
    );
    const customOrder = ['api-call', 'filter', 'log-node', 'transform'].map((key) => prompt.indexOf(`- ${key} "`));
    expect(customOrder.every((position) => position > 0)).toBe(true);
    expect([...customOrder].sort((a, b) => a - b)).toEqual(customOrder);
  });

  it('says so when the workspace has no custom types', async () => {
    const context: SystemPromptContext = { ...(await demoPromptContext()), nodeTypeConfigs: [] };
    expect(buildSystemPrompt(context, 'viewer')).toContain('Custom types of this workspace: none.');
  });

  it('gives a viewer read-only permissions and no write tool', async () => {
    const prompt = buildSystemPrompt(await demoPromptContext(), 'viewer');
    expect(prompt).toContain('# Your permissions (role: viewer)');
    expect(prompt).toContain('READ-ONLY');
    for (const tool of WRITE_TOOL_NAMES) expect(prompt).not.toContain(tool);
    expect(prompt).toContain('You cannot change the graph');
    expect(prompt).toContain('ask them with ask_user');
  });

  it('lets editors and admins propose changes as their policy allows, never claiming them applied, and names no write tool', async () => {
    const context = await demoPromptContext();
    for (const role of ['editor', 'admin'] as const) {
      const prompt = buildSystemPrompt(context, role);
      expect(prompt).toContain(`(role: ${role})`);
      expect(prompt).not.toContain('READ-ONLY');
      // Which kinds are offered, and what becomes of them, is the run's tool list: the prompt stays the same whatever the policy.
      for (const tool of WRITE_TOOL_NAMES) expect(prompt).not.toContain(tool);
      expect(prompt).toContain('nothing changes until a human approves');
      expect(prompt).toContain("each write tool's description says which");
      expect(prompt).toContain('never present a proposal as applied');
      expect(prompt).toContain('ask_user');
    }
  });

  it('states the strict rules and the Nodius conventions', async () => {
    const prompt = buildSystemPrompt(await demoPromptContext(), 'editor');
    expect(prompt).toContain('Never invent node keys, node types');
    expect(prompt).toContain('check with a tool');
    expect(prompt).toContain('Stay in this graph');
    expect(prompt).toContain('Never write database queries (AQL, SQL');
    expect(prompt).toContain('Node keys are local keys');
    expect(prompt).toContain("Answer in the user's language");
    expect(prompt).toContain(`"${RAG_CONTEXT_PREFIX.en}"`);
    expect(prompt).toContain('side:type(accept)');
    expect(prompt).toContain('process: the JavaScript code');
    expect(prompt).toContain("data: the node's own settings");
  });

  it('asks the model to evaluate its answer before each tool call and to stop when it has one (seed 003, both locales)', async () => {
    const context = await demoPromptContext();
    const english = buildSystemPrompt(context, 'viewer');
    expect(english).toContain('# When to use tools, and when to stop');
    expect(english).toContain('If you can answer directly and completely from the context, do it without tools.');
    expect(english).toContain(
      '1. "Do I really need this tool to answer?" 2. "Is my current answer already complete?" 3. "Does this tool bring real added value?"',
    );
    expect(english).toContain('Never call the same tool with the same arguments twice');
    const french = buildSystemPrompt(context, 'viewer', 'fr');
    expect(french).toContain("# Quand utiliser les outils, et quand s'arrêter");
    expect(french).toContain('« Ai-je vraiment besoin de cet outil pour répondre ? »');
    expect(french).not.toContain('When to use tools');
  });

  it('is written in French for locale fr', async () => {
    const prompt = buildSystemPrompt(await demoPromptContext(), 'viewer', 'fr');
    expect(prompt).toMatch(/^Tu es un assistant IA spécialisé dans les workflows Nodius/);
    expect(prompt).toContain('- Clé : nba-workflow');
    expect(prompt).toContain('LECTURE SEULE');
    expect(prompt).toContain(`"${RAG_CONTEXT_PREFIX.fr}"`);
    expect(prompt).toContain('# Règles');
    expect(prompt).not.toContain('You are');
  });

  it('is stable across questions: no per-question content, independent of config order', async () => {
    const context = await demoPromptContext();
    const reversed = { ...context, nodeTypeConfigs: [...context.nodeTypeConfigs].reverse() };
    expect(buildSystemPrompt(reversed, 'editor')).toBe(buildSystemPrompt(context, 'editor'));

    const retriever = new GraphRagRetriever();
    const first = await retriever.retrieve(source(), DEMO_GRAPH_KEY, 'fetch api NBA');
    const prompt = buildSystemPrompt(context, 'editor');
    expect(prompt).not.toContain('fetch api NBA');
    expect(prompt).not.toContain(buildContextMessage(first));
    expect(prompt).not.toContain('const season');
  });

  it('bounds a long graph description', async () => {
    const context = await demoPromptContext();
    const prompt = buildSystemPrompt(
      { ...context, graph: { ...context.graph, description: 'x'.repeat(5000) } },
      'viewer',
    );
    expect(prompt).toContain(`${'x'.repeat(1000)}...`);
    expect(prompt).not.toContain('x'.repeat(1001));
  });
});

describe(loadSystemPromptContext.name, () => {
  it('loads the graph and every custom type of the workspace', async () => {
    const context = await demoPromptContext();
    expect(context.graph).toEqual({
      _key: DEMO_GRAPH_KEY,
      name: 'NBA stats workflow',
      description: nbaWorkflowDemo.graph.description,
      sheets: { '0': 'main', '1': 'data-processing' },
    });
    expect(context.nodeTypeConfigs.map((config) => config._key).sort()).toEqual([
      'api-call',
      'filter',
      'log-node',
      'transform',
    ]);
  });

  it('throws not_found for an unknown graph', async () => {
    await expect(loadSystemPromptContext(source(), 'nope')).rejects.toMatchObject({ code: 'not_found' });
  });
});
