import { LlmToolCall } from '../../conversation/llm-message';
import { AgentToolbox, ReadToolRunner } from './agent.toolbox';
import { READ_TOOL_REGISTRY } from './read/read-tool.registry';
import { WRITE_TOOL_NAMES } from './write-tool-name';

const call = (name: string, args: string): LlmToolCall => ({ id: 'call_1', type: 'function', function: { name, arguments: args } });

const readTools: ReadToolRunner = { execute: async (name, raw) => `${name}:${raw}` };

describe(AgentToolbox.name, () => {
  const viewer = new AgentToolbox({ canPropose: false, readTools });
  const editor = new AgentToolbox({ canPropose: true, readTools });

  it('offers the read tools to viewers and read + write tools to editors, none without tool support', () => {
    expect(viewer.definitions.map((tool) => tool.function.name)).toEqual([...READ_TOOL_REGISTRY.names]);
    expect(editor.definitions.map((tool) => tool.function.name)).toEqual([...READ_TOOL_REGISTRY.names, ...WRITE_TOOL_NAMES]);
    expect(new AgentToolbox({ canPropose: true, readTools, toolsSupported: false }).definitions).toEqual([]);
  });

  it('routes read tools to execution and delegates to the read executor', async () => {
    expect(viewer.route(call('read_node_detail', '{"nodeKey":"root"}'))).toEqual({
      kind: 'read',
      name: 'read_node_detail',
      rawArguments: '{"nodeKey":"root"}',
    });
    await expect(viewer.executeRead('read_node_detail', '{"nodeKey":"root"}')).resolves.toBe('read_node_detail:{"nodeKey":"root"}');
  });

  it('routes malformed JSON to an announced error (read) or a silent one (write), flagged malformed', () => {
    expect(viewer.route(call('search_nodes', '{"query": "fetch'))).toMatchObject({ kind: 'error', malformed: true, announce: true });
    expect(editor.route(call('propose_delete_node', '{nodeKey: root}'))).toMatchObject({
      kind: 'error',
      malformed: true,
      announce: false,
      message: expect.stringContaining('not valid JSON'),
    });
    expect(editor.route(call('propose_delete_node', '[1]'))).toMatchObject({ kind: 'error', malformed: false });
  });

  it('routes a valid write call to a proposal and an invalid one to an error the model can correct', () => {
    expect(editor.route(call('propose_delete_node', '{"nodeKey":"root","reason":"unused"}'))).toEqual({
      kind: 'propose',
      name: 'propose_delete_node',
      action: { type: 'delete_node', payload: { nodeKey: 'root' }, reason: 'unused' },
    });
    expect(editor.route(call('propose_delete_node', '{"nodeKey":"root","reason":"x","cascade":true}'))).toMatchObject({
      kind: 'error',
      malformed: false,
      message: expect.stringContaining('cascade is not an allowed property'),
    });
  });

  it('refuses write calls from a viewer and unknown tools', () => {
    expect(viewer.route(call('propose_delete_node', '{"nodeKey":"root","reason":"x"}'))).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('not available'),
    });
    expect(editor.route(call('drop_database', '{}'))).toMatchObject({ kind: 'error', message: expect.stringContaining('Unknown tool') });
  });

  it('tells the model its errors in the AI_LOCALE language', () => {
    const french = new AgentToolbox({ canPropose: false, readTools, locale: 'fr' });
    expect(french.route(call('propose_delete_node', '{}'))).toMatchObject({ kind: 'error', message: expect.stringMatching(/^L'outil propose_delete_node n'est pas disponible/) });
    expect(french.route(call('teleport', '{}'))).toMatchObject({ message: expect.stringMatching(/^Outil inconnu "teleport"\. Outils disponibles : read_graph_overview/) });
    expect(french.route(call('search_nodes', '{"query": "fetch'))).toMatchObject({ message: expect.stringMatching(/^Les arguments ne sont pas du JSON valide/) });
  });
});
