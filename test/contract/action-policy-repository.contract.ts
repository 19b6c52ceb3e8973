import { randomUUID } from 'node:crypto';
import { ActionPolicyRepository } from '../../src/policy/action-policy.repository';

export interface ActionPolicyRepositoryFixture {
  repository: ActionPolicyRepository;
  /** A new repository on the same store, as after a restart. */
  reopen(): Promise<ActionPolicyRepository>;
  /** Releases what create() opened (connections, temp files). */
  close(): Promise<void>;
}

/**
 * The behaviour every ActionPolicyRepository adapter must have (SQLite, ArangoDB). Each test works in
 * its own workspaces, so adapters need no cleaning between tests.
 */
export function describeActionPolicyRepositoryContract(
  name: string,
  create: () => Promise<ActionPolicyRepositoryFixture>,
): void {
  describe(`ActionPolicyRepository contract: ${name}`, () => {
    let fixture: ActionPolicyRepositoryFixture;
    let repository: ActionPolicyRepository;
    let workspace: string;

    beforeEach(async () => {
      fixture = await create();
      repository = fixture.repository;
      workspace = `ws-${randomUUID()}`;
    });

    afterEach(async () => {
      await fixture.close();
    });

    it('has no policy for a workspace that never stored one', async () => {
      await expect(repository.get(workspace)).resolves.toBeNull();
    });

    it('stores a policy with its time and reads it back as stored', async () => {
      const policy = {
        default: { create_node: 'autonomous' as const, delete_node: 'forbidden' as const },
        roles: { admin: { delete_node: 'ask_first' as const }, editor: {} },
      };
      await expect(repository.put(workspace, policy, 1_700_000_000_000)).resolves.toEqual({
        ...policy,
        updatedTime: 1_700_000_000_000,
      });
      await expect(repository.get(workspace)).resolves.toEqual({ ...policy, updatedTime: 1_700_000_000_000 });
    });

    it('replaces the whole policy: kinds and roles left out of the new one are gone', async () => {
      await repository.put(
        workspace,
        { default: { create_node: 'autonomous', move_node: 'autonomous' }, roles: { admin: { batch: 'forbidden' } } },
        1,
      );
      await repository.put(workspace, { default: { move_node: 'ask_first' }, roles: {} }, 2);
      await expect(repository.get(workspace)).resolves.toEqual({
        default: { move_node: 'ask_first' },
        roles: {},
        updatedTime: 2,
      });
    });

    it('never mixes two workspaces, even ones whose names differ only in case or hold quotes', async () => {
      const others = [`${workspace}-other`, workspace.toUpperCase(), `${workspace}" || true || "`];
      await repository.put(workspace, { default: { delete_edge: 'forbidden' }, roles: {} }, 1);
      for (const [index, other] of others.entries()) {
        await expect(repository.get(other)).resolves.toBeNull();
        await repository.put(other, { default: { delete_edge: 'autonomous' }, roles: {} }, 10 + index);
      }
      await expect(repository.get(workspace)).resolves.toEqual({
        default: { delete_edge: 'forbidden' },
        roles: {},
        updatedTime: 1,
      });
      for (const [index, other] of others.entries()) {
        await expect(repository.get(other)).resolves.toEqual({
          default: { delete_edge: 'autonomous' },
          roles: {},
          updatedTime: 10 + index,
        });
      }
    });

    it('keeps a policy across a restart', async () => {
      await repository.put(
        workspace,
        { default: { update_node: 'autonomous' }, roles: { editor: { update_node: 'ask_first' } } },
        5,
      );
      const reopened = await fixture.reopen();
      await expect(reopened.get(workspace)).resolves.toEqual({
        default: { update_node: 'autonomous' },
        roles: { editor: { update_node: 'ask_first' } },
        updatedTime: 5,
      });
    });
  });
}
