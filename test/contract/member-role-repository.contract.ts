import { randomUUID } from 'node:crypto';
import { MemberRoleRepository } from '../../src/policy/member-roles/member-role.repository';

export interface MemberRoleRepositoryFixture {
  repository: MemberRoleRepository;
  /** A new repository on the same store, as after a restart. */
  reopen(): Promise<MemberRoleRepository>;
  close(): Promise<void>;
}

/** The behaviour every MemberRoleRepository adapter must have (SQLite, ArangoDB); each test uses its own workspace. */
export function describeMemberRoleRepositoryContract(
  name: string,
  create: () => Promise<MemberRoleRepositoryFixture>,
): void {
  describe(`MemberRoleRepository contract: ${name}`, () => {
    let fixture: MemberRoleRepositoryFixture;
    let repository: MemberRoleRepository;
    let workspace: string;

    beforeEach(async () => {
      fixture = await create();
      repository = fixture.repository;
      workspace = `ws-${randomUUID()}`;
    });
    afterEach(async () => {
      await fixture.close();
    });

    it('knows nobody it never saw', async () => {
      await expect(repository.get(workspace, 'ada')).resolves.toBeNull();
    });

    it('keeps the latest role seen, and never goes back to an earlier sighting', async () => {
      await repository.record(workspace, 'ada', 'admin', 1_000);
      await repository.record(workspace, 'ada', 'viewer', 2_000);
      await expect(repository.get(workspace, 'ada')).resolves.toEqual({ role: 'viewer', seenTime: 2_000 });
      await repository.record(workspace, 'ada', 'admin', 1_500);
      await expect(repository.get(workspace, 'ada')).resolves.toEqual({ role: 'viewer', seenTime: 2_000 });
    });

    it("keeps each workspace's people apart, and survives a restart", async () => {
      await repository.record(workspace, 'ada', 'editor', 1_000);
      await expect(repository.get(`other-${workspace}`, 'ada')).resolves.toBeNull();
      await expect((await fixture.reopen()).get(workspace, 'ada')).resolves.toEqual({
        role: 'editor',
        seenTime: 1_000,
      });
    });
  });
}
