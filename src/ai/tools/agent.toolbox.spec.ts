import { LlmToolCall } from '../../conversation/llm-message';
import { ActionPolicy, effectiveLevels } from '../../policy/action-policy';
import { RunAuthority } from '../authority/run-authority';
import { AgentToolbox, ReadToolRunner } from './agent.toolbox';
import { READ_TOOL_REGISTRY } from './read/read-tool.registry';
import { WRITE_TOOL_DEFINITIONS } from './write-tool.definitions';
import { WRITE_TOOL_NAMES } from './write-tool-name';

const call = (name: string, args: string): LlmToolCall => ({
  id: 'call_1',
  type: 'function',
  function: { name, arguments: args },
});

const readTools: ReadToolRunner = { execute: async (name, raw) => `${name}:${raw}` };

describe(AgentToolbox.name, () => {
  const viewer = new AgentToolbox({ authority: RunAuthority.withDefaultLevels(false), readTools });
  const editor = new AgentToolbox({ authority: RunAuthority.withDefaultLevels(true), readTools });

  it('offers the read tools and ask_user to viewers, and the write tools too to editors, none without tool support', () => {
    expect(viewer.definitions.map((tool) => tool.function.name)).toEqual([...READ_TOOL_REGISTRY.names, 'ask_user']);
    expect(editor.definitions.map((tool) => tool.function.name)).toEqual([
      ...READ_TOOL_REGISTRY.names,
      ...WRITE_TOOL_NAMES,
      'ask_user',
    ]);
    // Without a policy the write tools are offered exactly as defined: every proposal waits for a human.
    expect(editor.definitions.slice(READ_TOOL_REGISTRY.names.length, -1)).toEqual([...WRITE_TOOL_DEFINITIONS]);
    expect(
      new AgentToolbox({ authority: RunAuthority.withDefaultLevels(true), readTools, toolsSupported: false })
        .definitions,
    ).toEqual([]);
  });

  it('routes read tools to execution and delegates to the read executor', async () => {
    expect(viewer.route(call('read_node_detail', '{"nodeKey":"root"}'))).toEqual({
      kind: 'read',
      name: 'read_node_detail',
      rawArguments: '{"nodeKey":"root"}',
    });
    await expect(viewer.executeRead('read_node_detail', '{"nodeKey":"root"}')).resolves.toBe(
      'read_node_detail:{"nodeKey":"root"}',
    );
  });

  it('routes malformed JSON to an announced error (read) or a silent one (write), flagged malformed', () => {
    expect(viewer.route(call('search_nodes', '{"query": "fetch'))).toMatchObject({
      kind: 'error',
      malformed: true,
      announce: true,
    });
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
    expect(editor.route(call('drop_database', '{}'))).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('Unknown tool'),
    });
  });

  describe('with an action policy', () => {
    const toolbox = (levels: ActionPolicy['default']) =>
      new AgentToolbox({
        authority: new RunAuthority(true, effectiveLevels({ default: levels, roles: {} }, 'editor')),
        readTools,
      });
    const names = (box: AgentToolbox) => box.definitions.map((tool) => tool.function.name);
    const definitionOf = (box: AgentToolbox, name: string) =>
      box.definitions.find((tool) => tool.function.name === name)!.function;

    it('offers no tool of a forbidden kind, and leaves it out of propose_batch', () => {
      const box = toolbox({ delete_node: 'forbidden', delete_edge: 'forbidden' });
      expect(names(box)).toEqual([
        ...READ_TOOL_REGISTRY.names,
        'propose_create_node',
        'propose_create_edge',
        'propose_update_node',
        'propose_move_node',
        'propose_batch',
        'ask_user',
      ]);
      const batch = JSON.stringify(definitionOf(box, 'propose_batch'));
      expect(batch).not.toContain('delete_node');
      expect(batch).not.toContain('delete_edge');
      expect(batch).toContain('"enum":["create_node","create_edge","update_node","move_node","batch"]');
      expect(names(toolbox({ batch: 'forbidden' }))).not.toContain('propose_batch');
      const onlyBatch = toolbox({
        create_node: 'forbidden',
        create_edge: 'forbidden',
        delete_node: 'forbidden',
        update_node: 'forbidden',
        move_node: 'forbidden',
        delete_edge: 'forbidden',
      });
      expect(names(onlyBatch)).toEqual([...READ_TOOL_REGISTRY.names, 'ask_user']);
    });

    it("says in each write tool's description what becomes of its proposals", () => {
      const box = toolbox({ create_node: 'autonomous', delete_node: 'ask_first' });
      expect(definitionOf(box, 'propose_create_node').description).toContain('apply at once, without approval');
      expect(definitionOf(box, 'propose_delete_node').description).toContain(
        'ask with ask_user (kind "confirm", with forAction',
      );
      expect(definitionOf(box, 'propose_move_node').description).toContain('Nothing changes until a human approves');
      expect(definitionOf(box, 'propose_batch').description).toContain('strictest of its actions');
      // Without create_edge the batch example (a node and its edge) is not shown.
      expect(JSON.stringify(definitionOf(toolbox({ create_edge: 'forbidden' }), 'propose_batch'))).not.toContain(
        'create_edge',
      );
    });

    it('routes each valid proposal as its policy says: applied, interrupting, or refused with a message for the model', () => {
      const box = toolbox({ create_node: 'autonomous', delete_node: 'ask_first', delete_edge: 'forbidden' });
      const create = '{"typeKey":"log-node","sheet":"0","posX":1,"posY":2,"reason":"log"}';
      expect(box.route(call('propose_create_node', create))).toMatchObject({
        kind: 'apply',
        action: { type: 'create_node' },
      });
      expect(
        box.route(call('propose_move_node', '{"nodeKey":"root","posX":1,"posY":2,"reason":"tidy"}')),
      ).toMatchObject({ kind: 'propose' });
      expect(box.route(call('propose_delete_node', '{"nodeKey":"root","reason":"x"}'))).toMatchObject({
        kind: 'error',
        refusedBy: 'ask_first',
        message: expect.stringContaining('First call ask_user'),
      });
      expect(box.route(call('propose_delete_edge', '{"edgeKey":"e","reason":"x"}'))).toMatchObject({
        kind: 'error',
        refusedBy: 'forbidden',
      });
      // An invalid call is an invalid call first, whatever the policy.
      expect(box.route(call('propose_delete_edge', '{"edgeKey":"e"}'))).toMatchObject({
        kind: 'error',
        message: expect.stringContaining('reason is required'),
      });
    });

    it('routes a valid ask_user call to a question, and an invalid one to an error, for every role', () => {
      expect(viewer.route(call('ask_user', '{"kind":"confirm","question":"Go on?"}'))).toEqual({
        kind: 'ask',
        name: 'ask_user',
        question: { questionKind: 'confirm', question: 'Go on?' },
      });
      expect(
        viewer.route(call('ask_user', '{"kind":"confirm","question":"Go on?","options":["a","b"]}')),
      ).toMatchObject({ kind: 'error', announce: false });
      expect(viewer.route(call('ask_user', '{"kind":'))).toMatchObject({ kind: 'error', malformed: true });
    });
  });

  it('tells the model its errors in the AI_LOCALE language', () => {
    const french = new AgentToolbox({ authority: RunAuthority.withDefaultLevels(false), readTools, locale: 'fr' });
    expect(french.route(call('propose_delete_node', '{}'))).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/^L'outil propose_delete_node n'est pas disponible/),
    });
    expect(french.route(call('teleport', '{}'))).toMatchObject({
      message: expect.stringMatching(/^Outil inconnu "teleport"\. Outils disponibles : read_graph_overview/),
    });
    expect(french.route(call('search_nodes', '{"query": "fetch'))).toMatchObject({
      message: expect.stringMatching(/^Les arguments ne sont pas du JSON valide/),
    });
  });
});
