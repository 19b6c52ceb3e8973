import { ProposedAction } from '../../conversation/proposed-action';
import { ActionPolicy, effectiveLevels, EMPTY_ACTION_POLICY } from '../../policy/action-policy';
import { kindsOf, RunPolicy } from './run-policy';

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
const editorRun = () => new RunPolicy(true, effectiveLevels(policy, 'editor'));

describe(RunPolicy.name, () => {
  it('interrupts every proposal and offers every kind by default', () => {
    const run = new RunPolicy(true, effectiveLevels(EMPTY_ACTION_POLICY, 'editor'));
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
    expect(run.decide(createNode)).toEqual({ outcome: 'apply' });
    expect(run.offeredKinds()).not.toContain('delete_edge');
    expect(run.decide(deleteEdge)).toEqual({
      outcome: 'refuse',
      level: 'forbidden',
      message: expect.stringContaining('forbids delete_edge'),
    });
  });

  it('follows the role override: an admin may have delete_edge approved where an editor may not', () => {
    const admin = new RunPolicy(true, effectiveLevels(policy, 'admin'));
    expect(admin.offeredKinds()).toContain('delete_edge');
    expect(admin.decide(deleteEdge)).toEqual({ outcome: 'interrupt' });
  });

  it('gives a batch the strictest level of its parts', () => {
    const run = editorRun();
    expect(run.decide(batch(createNode, createNode))).toEqual({ outcome: 'apply' });
    expect(run.decide(batch(createNode, deleteNode))).toMatchObject({ outcome: 'refuse', level: 'ask_first' });
    const refused = run.decide(batch(createNode, deleteNode, batch(deleteEdge)));
    expect(refused).toMatchObject({ outcome: 'refuse', level: 'forbidden' });
    expect(refused).toMatchObject({ message: expect.not.stringContaining('create_node') });
    // The batch kind itself counts: left at its default, it makes any batch wait for approval.
    const strictBatch = new RunPolicy(
      true,
      effectiveLevels({ default: { create_node: 'autonomous' }, roles: {} }, 'editor'),
    );
    expect(strictBatch.decide(createNode)).toEqual({ outcome: 'apply' });
    expect(strictBatch.decide(batch(createNode))).toEqual({ outcome: 'interrupt' });
  });

  it('refuses ask_first kinds until a yes, then handles them as autonomous for the rest of the run', () => {
    const run = editorRun();
    const refused = run.decide(deleteNode);
    expect(refused).toMatchObject({ outcome: 'refuse', level: 'ask_first' });
    expect(refused.outcome === 'refuse' && refused.message).toContain('ask_user');
    expect(run.offeredKinds()).toContain('delete_node');

    run.grantAskFirst();
    expect(run.decide(deleteNode)).toEqual({ outcome: 'apply' });
    expect(run.decide(batch(createNode, deleteNode))).toEqual({ outcome: 'apply' });
    // A yes never lifts a forbidden kind.
    expect(run.decide(batch(deleteNode, deleteEdge))).toMatchObject({ outcome: 'refuse', level: 'forbidden' });
  });

  it('keeps its levels and its yes across an interrupt (restored from its state), whatever the policy says later', () => {
    const run = editorRun();
    run.grantAskFirst();
    const stored = JSON.parse(JSON.stringify(run.snapshot()));
    const restored = RunPolicy.restore(true, stored);
    expect(restored.decide(deleteNode)).toEqual({ outcome: 'apply' });
    expect(restored.decide(createNode)).toEqual({ outcome: 'apply' });
    expect(RunPolicy.restore(true, { ...stored, askFirstGranted: false }).decide(deleteNode)).toMatchObject({
      outcome: 'refuse',
    });
  });

  it('offers nothing to a viewer and refuses any proposal, whatever the policy', () => {
    const viewer = new RunPolicy(false, effectiveLevels(policy, 'viewer'));
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
    const french = new RunPolicy(
      true,
      effectiveLevels({ default: { delete_edge: 'forbidden', delete_node: 'ask_first' }, roles: {} }, 'editor'),
      false,
      'fr',
    );
    expect(french.decide(deleteEdge)).toMatchObject({
      outcome: 'refuse',
      message: expect.stringMatching(/^La politique de ce workspace interdit delete_edge/),
    });
    const viewer = new RunPolicy(false, effectiveLevels({ default: {}, roles: {} }, 'viewer'), false, 'fr');
    expect(viewer.decide(deleteEdge)).toMatchObject({
      message: expect.stringMatching(/^Cet utilisateur ne peut que lire le graph/),
    });
  });
});
