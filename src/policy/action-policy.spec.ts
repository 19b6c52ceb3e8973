import { ACTION_KINDS, ActionPolicy, effectiveLevels, EMPTY_ACTION_POLICY, strictestLevel } from './action-policy';

describe('action policy', () => {
  it("gives every kind validation_required when no policy is stored (today's behaviour)", () => {
    for (const role of ['viewer', 'editor', 'admin']) {
      expect(effectiveLevels(EMPTY_ACTION_POLICY, role)).toEqual(
        Object.fromEntries(ACTION_KINDS.map((kind) => [kind, 'validation_required'])),
      );
    }
  });

  it('takes the role override first, then the workspace default, then validation_required', () => {
    const policy: ActionPolicy = {
      default: { create_node: 'autonomous', delete_node: 'forbidden' },
      roles: { admin: { delete_node: 'ask_first' }, editor: { move_node: 'autonomous' } },
    };
    expect(effectiveLevels(policy, 'editor')).toMatchObject({
      create_node: 'autonomous',
      delete_node: 'forbidden',
      move_node: 'autonomous',
      update_node: 'validation_required',
    });
    expect(effectiveLevels(policy, 'admin')).toMatchObject({
      create_node: 'autonomous',
      delete_node: 'ask_first',
      move_node: 'validation_required',
    });
    // Viewers have no override of their own (and are offered no write tool anyway).
    expect(effectiveLevels(policy, 'viewer')).toMatchObject({
      create_node: 'autonomous',
      delete_node: 'forbidden',
      move_node: 'validation_required',
    });
  });

  it('orders levels forbidden > ask_first > validation_required > autonomous', () => {
    expect(strictestLevel([])).toBe('autonomous');
    expect(strictestLevel(['autonomous', 'validation_required'])).toBe('validation_required');
    expect(strictestLevel(['validation_required', 'ask_first', 'autonomous'])).toBe('ask_first');
    expect(strictestLevel(['ask_first', 'forbidden', 'autonomous'])).toBe('forbidden');
  });
});
