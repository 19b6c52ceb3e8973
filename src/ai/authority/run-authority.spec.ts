import { ProposedAction } from '../../conversation/proposed-action';
import { ActionPolicy, effectiveLevels, EMPTY_ACTION_POLICY } from '../../policy/action-policy';
import { kindsOf, RunAuthority } from './run-authority';

const createNode: ProposedAction = {
  type: 'create_node',
  payload: { typeKey: 'log-node', sheet: '0', posX: 0, posY: 0 },
  reason: 'log',
};
const deleteNode: ProposedAction = { type: 'delete_node', payload: { nodeKey: 'root' }, reason: 'unused' };
const deleteEdge: ProposedAction = { type: 'delete_edge', payload: { edgeKey: 'e1' }, reason: 'unused' };
const batch = (...actions: ProposedAction[]): ProposedAction => ({
  type: 'batch',
  payload: { actions },
  reason: 'together',
});

const policy: ActionPolicy = {
  default: {
    create_node: 'autonomous',
    create_edge: 'autonomous',
    delete_node: 'ask_first',
    delete_edge: 'forbidden',
    batch: 'autonomous',
  },
  roles: { admin: { delete_edge: 'validation_required' } },
};
const editorRun = () => new RunAuthority(true, effectiveLevels(policy, 'editor'));

describe(RunAuthority.name, () => {
  it('interrupts every proposal and offers every kind by default', () => {
    const run = new RunAuthority(true, effectiveLevels(EMPTY_ACTION_POLICY, 'editor'));
    expect(run.offeredKinds()).toEqual([
      'create_node',
      'update_node',
      'move_node',
      'delete_node',
      'create_edge',
      'delete_edge',
      'batch',
    ]);
    expect(run.decide(createNode)).toEqual({ outcome: 'interrupt' });
    expect(run.decide(batch(createNode, deleteNode))).toEqual({ outcome: 'interrupt' });
  });

  it('applies autonomous kinds, refuses forbidden ones and does not offer them', () => {
    const run = editorRun();
    expect(run.decide(createNode)).toEqual({ outcome: 'apply', via: 'autonomous' });
    expect(run.offeredKinds()).not.toContain('delete_edge');
    expect(run.decide(deleteEdge)).toEqual({
      outcome: 'refuse',
      level: 'forbidden',
      message: expect.stringContaining('forbids delete_edge'),
    });
  });

  it('follows the role override: an admin may have delete_edge approved where an editor may not', () => {
    const admin = new RunAuthority(true, effectiveLevels(policy, 'admin'));
    expect(admin.offeredKinds()).toContain('delete_edge');
    expect(admin.decide(deleteEdge)).toEqual({ outcome: 'interrupt' });
  });

  it('gives a batch the strictest level of its parts', () => {
    const run = editorRun();
    expect(run.decide(batch(createNode, createNode))).toEqual({ outcome: 'apply', via: 'autonomous' });
    expect(run.decide(batch(createNode, deleteNode))).toMatchObject({ outcome: 'refuse', level: 'ask_first' });
    const refused = run.decide(batch(createNode, deleteNode, batch(deleteEdge)));
    expect(refused).toMatchObject({ outcome: 'refuse', level: 'forbidden' });
    expect(refused).toMatchObject({ message: expect.not.stringContaining('create_node') });
    // The batch kind itself counts: left at its default, it makes any batch wait for approval.
    const strictBatch = new RunAuthority(
      true,
      effectiveLevels({ default: { create_node: 'autonomous' }, roles: {} }, 'editor'),
    );
    expect(strictBatch.decide(createNode)).toEqual({ outcome: 'apply', via: 'autonomous' });
    expect(strictBatch.decide(batch(createNode))).toEqual({ outcome: 'interrupt' });
  });

  it('refuses an ask_first kind until a yes to a question asked for it, from the next reply on, for that target only', () => {
    const run = editorRun();
    const refused = run.decide(deleteNode);
    expect(refused).toMatchObject({ outcome: 'refuse', level: 'ask_first' });
    expect(refused.outcome === 'refuse' && refused.message).toContain('forAction');
    expect(run.offeredKinds()).toContain('delete_node');

    run.grant({ kind: 'delete_node', target: 'root' }, 'call_ask');
    // A proposal in the same reply as the question is checked without the yes.
    expect(run.decide(deleteNode)).toMatchObject({ outcome: 'refuse', level: 'ask_first' });
    run.beginReply();
    expect(run.decide(deleteNode)).toEqual({ outcome: 'apply', via: 'ask_first' });
    expect(run.decide({ ...deleteNode, payload: { nodeKey: 'fetch-api' } })).toMatchObject({ outcome: 'refuse' });
    expect(run.decide(batch(createNode, deleteNode))).toEqual({ outcome: 'apply', via: 'ask_first' });
    // A yes never lifts a forbidden kind.
    expect(run.decide(batch(deleteNode, deleteEdge))).toMatchObject({ outcome: 'refuse', level: 'forbidden' });
    // Its tool still says to ask first: the yes covers one node.
    expect(run.levelOfKind('delete_node')).toBe('ask_first');
  });

  it('lets a yes without a target allow the kind for the rest of the run, and no other kind', () => {
    const run = new RunAuthority(
      true,
      effectiveLevels({ default: { delete_node: 'ask_first', delete_edge: 'ask_first' }, roles: {} }, 'editor'),
    );
    run.grant({ kind: 'delete_node' }, 'call_ask');
    run.beginReply();
    expect(run.decide(deleteNode)).toEqual({ outcome: 'apply', via: 'ask_first' });
    expect(run.levelOfKind('delete_node')).toBe('autonomous');
    expect(run.decide(deleteEdge)).toMatchObject({ outcome: 'refuse', level: 'ask_first' });
  });

  it('judges an update that sets posX or posY as a move too (the strictest level wins)', () => {
    const run = new RunAuthority(
      true,
      effectiveLevels({ default: { update_node: 'autonomous', move_node: 'forbidden' }, roles: {} }, 'editor'),
    );
    const moves: ProposedAction = {
      type: 'update_node',
      payload: { nodeKey: 'root', changes: { posX: 10, 'data.label': 'x' } },
      reason: 'move it',
    };
    const edits: ProposedAction = {
      type: 'update_node',
      payload: { nodeKey: 'root', changes: { 'data.label': 'x' } },
      reason: 'label',
    };
    expect(run.decide(moves)).toMatchObject({
      outcome: 'refuse',
      level: 'forbidden',
      message: expect.stringContaining('move_node'),
    });
    expect(run.decide(edits)).toEqual({ outcome: 'apply', via: 'autonomous' });
    expect([...kindsOf(moves)].sort()).toEqual(['move_node', 'update_node']);
  });

  it('keeps its levels and its yeses across an interrupt (restored from its state), whatever the policy says later', () => {
    const run = editorRun();
    run.grant({ kind: 'delete_node', target: 'root' }, 'call_ask');
    const stored = JSON.parse(JSON.stringify(run.snapshot()));
    const restored = RunAuthority.restore(true, stored);
    // Restored for the resume, the yes still waits for the model's next reply.
    expect(restored.decide(deleteNode)).toMatchObject({ outcome: 'refuse' });
    restored.beginReply();
    expect(restored.decide(deleteNode)).toEqual({ outcome: 'apply', via: 'ask_first' });
    expect(restored.decide(createNode)).toEqual({ outcome: 'apply', via: 'autonomous' });
    // A state stored before yeses were bound to an action grants nothing.
    expect(
      RunAuthority.restore(true, { levels: stored.levels, askFirstGranted: true } as never).decide(deleteNode),
    ).toMatchObject({
      outcome: 'refuse',
    });
  });

  it('offers nothing to a viewer and refuses any proposal, whatever the policy', () => {
    const viewer = new RunAuthority(false, effectiveLevels(policy, 'viewer'));
    expect(viewer.offeredKinds()).toEqual([]);
    expect(viewer.decide(createNode)).toEqual({
      outcome: 'refuse',
      level: 'forbidden',
      message: expect.stringContaining('only read'),
    });
  });

  describe(kindsOf.name, () => {
    it('lists the kinds of an action, a batch counting itself and every part, nested ones included', () => {
      expect([...kindsOf(deleteNode)]).toEqual(['delete_node']);
      const nested: ProposedAction = {
        type: 'batch',
        reason: 'clean up',
        payload: {
          actions: [
            { type: 'move_node', payload: { nodeKey: 'root', posX: 1, posY: 2 }, reason: 'tidy' },
            { type: 'batch', reason: '', payload: { actions: [deleteEdge] } },
          ],
        },
      };
      expect([...kindsOf(nested)].sort()).toEqual(['batch', 'delete_edge', 'move_node']);
    });
  });

  it('tells the model its refusals in the AI_LOCALE language', () => {
    const french = new RunAuthority(
      true,
      effectiveLevels({ default: { delete_edge: 'forbidden', delete_node: 'ask_first' }, roles: {} }, 'editor'),
      [],
      'fr',
    );
    expect(french.decide(deleteEdge)).toMatchObject({
      outcome: 'refuse',
      message: expect.stringMatching(/^La politique de ce workspace interdit delete_edge/),
    });
    const viewer = new RunAuthority(false, effectiveLevels({ default: {}, roles: {} }, 'viewer'), [], 'fr');
    expect(viewer.decide(deleteEdge)).toMatchObject({
      message: expect.stringMatching(/^Cet utilisateur ne peut que lire le graph/),
    });
  });
});
