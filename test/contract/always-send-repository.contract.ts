import { randomUUID } from 'node:crypto';
import type { AlwaysSendRepository } from '../../src/always-send/always-send.repository';

export interface AlwaysSendRepositoryFixture {
  repository: AlwaysSendRepository;
  /** A new repository on the same store, as after a restart. */
  reopen(): Promise<AlwaysSendRepository>;
  close(): Promise<void>;
}

/** The behaviour every AlwaysSendRepository adapter must have (SQLite, ArangoDB); each test uses its own workspace. */
export function describeAlwaysSendRepositoryContract(
  name: string,
  create: () => Promise<AlwaysSendRepositoryFixture>,
): void {
  describe(`AlwaysSendRepository contract: ${name}`, () => {
    let fixture: AlwaysSendRepositoryFixture;
    let repository: AlwaysSendRepository;
    let workspace: string;

    beforeEach(async () => {
      fixture = await create();
      repository = fixture.repository;
      workspace = `ws-${randomUUID()}`;
    });
    afterEach(async () => {
      await fixture.close();
    });

    it('has no list for a graph that never stored one', async () => {
      await expect(repository.get(workspace, 'g')).resolves.toBeNull();
    });

    it('replaces a graph’s list whole, keeps it across a restart, in order', async () => {
      await repository.put(workspace, 'g', { nodeKeys: ['a', 'b'], nodeTypes: ['t'] }, 1_000);
      await expect(repository.put(workspace, 'g', { nodeKeys: ['c', 'a'], nodeTypes: [] }, 2_000)).resolves.toEqual({
        nodeKeys: ['c', 'a'],
        nodeTypes: [],
        updatedTime: 2_000,
      });
      const reopened = await fixture.reopen();
      await expect(reopened.get(workspace, 'g')).resolves.toEqual({
        nodeKeys: ['c', 'a'],
        nodeTypes: [],
        updatedTime: 2_000,
      });
    });

    it('keeps each workspace’s and each graph’s list apart', async () => {
      await repository.put(workspace, 'g', { nodeKeys: ['mine'], nodeTypes: [] }, 1_000);
      await repository.put(workspace, 'other-graph', { nodeKeys: [], nodeTypes: ['t'] }, 1_000);
      await expect(repository.get(`${workspace}-other`, 'g')).resolves.toBeNull();
      await expect(repository.get(workspace, 'g')).resolves.toMatchObject({ nodeKeys: ['mine'], nodeTypes: [] });
      await expect(repository.get(workspace, 'other-graph')).resolves.toMatchObject({ nodeKeys: [], nodeTypes: ['t'] });
    });
  });
}
