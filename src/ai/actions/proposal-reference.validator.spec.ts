import { InMemoryGraphDataSource } from '../../../test/support/in-memory-graph-data-source';
import { GraphDocument, GraphEdge, GraphNode } from '../../graph/graph.types';
import { ProposalReferenceCheck, ProposalReferenceValidator } from './proposal-reference.validator';
import { ProposedAction } from '../../conversation/proposed-action';

const GRAPH = 'g';
const node = (key: string, sheet = '0'): GraphNode => ({
  _key: key,
  graphKey: GRAPH,
  type: 'html',
  sheet,
  posX: 0,
  posY: 0,
});
const edge = (key: string, source: string, target: string): GraphEdge => ({
  _key: key,
  graphKey: GRAPH,
  sheet: '0',
  source,
  sourceHandle: 'R-0',
  target,
  targetHandle: 'L-0',
});

const document = (sheetsList: Record<string, string>): GraphDocument => ({
  graph: { _key: GRAPH, workspace: 'ws', name: 'G', sheetsList },
  nodes: [node('a'), node('b'), node('c', '1')],
  edges: [edge('a-b', 'a', 'b')],
  nodeConfigs: [],
});

const createNode = (sheet: string, nodeKey?: string): ProposedAction => ({
  type: 'create_node',
  payload: { ...(nodeKey ? { nodeKey } : {}), typeKey: 'html', sheet, posX: 1, posY: 2 },
  reason: 'r',
});
const createEdge = (sourceKey: string, targetKey: string, sheet = '0', edgeKey?: string): ProposedAction => ({
  type: 'create_edge',
  payload: { ...(edgeKey ? { edgeKey } : {}), sourceKey, sourceHandle: 'R-0', targetKey, targetHandle: 'L-0', sheet },
  reason: 'r',
});
const batch = (...actions: ProposedAction[]): ProposedAction => ({ type: 'batch', payload: { actions }, reason: 'r' });
const update = (nodeKey: string): ProposedAction => ({
  type: 'update_node',
  payload: { nodeKey, changes: { process: 'x' } },
  reason: 'r',
});
const move = (nodeKey: string): ProposedAction => ({
  type: 'move_node',
  payload: { nodeKey, posX: 1, posY: 1 },
  reason: 'r',
});
const deleteNode = (nodeKey: string): ProposedAction => ({ type: 'delete_node', payload: { nodeKey }, reason: 'r' });
const deleteEdge = (edgeKey: string): ProposedAction => ({ type: 'delete_edge', payload: { edgeKey }, reason: 'r' });

const messageOf = (check: ProposalReferenceCheck): string => {
  if (check.ok) throw new Error('expected a refused proposal');
  return check.message;
};

describe(ProposalReferenceValidator.name, () => {
  const validatorFor = (sheetsList: Record<string, string> = { '0': 'main', '1': 'data-processing' }) =>
    new ProposalReferenceValidator(new InMemoryGraphDataSource('ws', [document(sheetsList)]), GRAPH);

  it('accepts a proposal whose references all exist, unchanged', async () => {
    const action = batch(createNode('1'), update('a'), move('b'), createEdge('a', 'c'), deleteEdge('a-b'));
    expect(await validatorFor().validate(action)).toEqual({ ok: true, action });
  });

  it('resolves a sheet given by its name to its id, in nested batches too', async () => {
    const check = await validatorFor().validate(
      batch(createNode('main'), batch(createEdge('a', 'b', 'data-processing'))),
    );
    expect(check).toEqual({ ok: true, action: batch(createNode('0'), batch(createEdge('a', 'b', '1'))) });
  });

  it('falls back to a case-insensitive name, and prefers an id over a name', async () => {
    expect(await validatorFor().validate(createNode(' Main'))).toEqual({ ok: true, action: createNode('0') });
    // Sheet "1" is named "0": the id "0" still means sheet "0".
    expect(await validatorFor({ '0': 'main', '1': '0' }).validate(createNode('0'))).toEqual({
      ok: true,
      action: createNode('0'),
    });
  });

  it('refuses an unknown sheet, listing the valid ones', async () => {
    const message = messageOf(await validatorFor().validate(createNode('sheet-9')));
    expect(message).toContain('Sheet "sheet-9" does not exist');
    expect(message).toContain('"0" (main), "1" (data-processing)');
  });

  it('refuses a sheet name two sheets share', async () => {
    const message = messageOf(
      await validatorFor({ '0': 'main', '1': 'draft', '2': 'draft' }).validate(createEdge('a', 'b', 'draft')),
    );
    expect(message).toContain('The sheet name "draft" is ambiguous (sheets "1", "2")');
  });

  it.each([
    ['update_node', update('ghost')],
    ['move_node', move('ghost')],
    ['delete_node', deleteNode('ghost')],
    ['create_edge from', createEdge('ghost', 'a')],
    ['create_edge to', createEdge('a', 'ghost')],
  ])('refuses %s on a node that does not exist', async (_label, action) => {
    expect(messageOf(await validatorFor().validate(action))).toContain('Node "ghost" does not exist');
  });

  it('refuses deleting an edge that does not exist', async () => {
    expect(messageOf(await validatorFor().validate(deleteEdge('b-a')))).toContain('Edge "b-a" does not exist');
  });

  it('refuses keys the model chose that are already taken or repeated', async () => {
    expect(messageOf(await validatorFor().validate(createNode('0', 'a')))).toContain('A node "a" already exists');
    expect(messageOf(await validatorFor().validate(createEdge('a', 'b', '0', 'a-b')))).toContain(
      'An edge "a-b" already exists',
    );
    expect(messageOf(await validatorFor().validate(batch(createNode('0', 'n'), createNode('0', 'n'))))).toContain(
      '"n" is created twice',
    );
  });

  it('counts what the batch creates and deletes, as the planner applies it (deletions first)', async () => {
    const validator = validatorFor();
    expect(
      await validator.validate(batch(createNode('0', 'new'), createEdge('a', 'new'), update('new'), move('new'))),
    ).toMatchObject({ ok: true });
    // Replacing a node: its key is free once the batch deleted it.
    expect(await validator.validate(batch(createNode('0', 'a'), deleteNode('a')))).toMatchObject({ ok: true });
    expect(await validator.validate(batch(deleteEdge('a-b'), createEdge('a', 'b', '0', 'a-b')))).toMatchObject({
      ok: true,
    });
    expect(messageOf(await validator.validate(batch(deleteNode('a'), update('a'))))).toContain(
      'Node "a" is deleted by this same proposal',
    );
    expect(messageOf(await validator.validate(batch(createEdge('c', 'b'), deleteNode('c'))))).toContain(
      'Node "c" is deleted by this same proposal',
    );
  });

  it('lists every problem at once, each once, asking for a corrected call', async () => {
    const message = messageOf(await validatorFor().validate(batch(update('x'), move('x'), createNode('nowhere'))));
    expect(message.match(/Node "x" does not exist/g)).toHaveLength(1);
    expect(message).toContain('Sheet "nowhere" does not exist');
    expect(message).toMatch(/^The proposal was not shown to the user: .* Correct it and call the tool again\.$/);
  });

  it('refuses everything when the graph is gone', async () => {
    const validator = new ProposalReferenceValidator(new InMemoryGraphDataSource('ws', []), GRAPH);
    expect(messageOf(await validator.validate(move('a')))).toContain('The graph "g" does not exist');
  });

  it('explains a refusal in the AI_LOCALE language', async () => {
    const french = new ProposalReferenceValidator(
      new InMemoryGraphDataSource('ws', [document({ '0': 'main' })]),
      GRAPH,
      'fr',
    );
    const message = messageOf(await french.validate(batch(update('ghost'), createNode('nowhere'))));
    expect(message).toMatch(/^La proposition n'a pas été montrée à l'utilisateur/);
    expect(message).toContain('Le node "ghost" n\'existe pas');
    expect(message).toContain('La sheet "nowhere" n\'existe pas. Sheets valides (id et nom) : "0" (main)');
  });
});
