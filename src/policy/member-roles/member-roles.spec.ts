import type { Role } from '../../auth/principal';
import type { MemberRoleRepository, SeenRole } from './member-role.repository';
import { lowestRole, MemberRoles } from './member-roles';

/** Keeps sightings in memory, counting writes. */
class CountingRepository implements MemberRoleRepository {
  readonly writes: Array<[string, string, Role]> = [];
  private readonly seen = new Map<string, SeenRole>();
  async record(workspace: string, userId: string, role: Role, seenTime: number): Promise<void> {
    this.writes.push([workspace, userId, role]);
    this.seen.set(`${workspace}/${userId}`, { role, seenTime });
  }
  async get(workspace: string, userId: string): Promise<SeenRole | null> {
    return this.seen.get(`${workspace}/${userId}`) ?? null;
  }
}

describe(MemberRoles.name, () => {
  it('records a role once per change, not once per request, and answers it as the current role', async () => {
    const repository = new CountingRepository();
    const roles = new MemberRoles(repository);
    const ada = { userId: 'ada', workspace: 'w' };
    await roles.seen({ ...ada, role: 'admin' });
    await roles.seen({ ...ada, role: 'admin' });
    await roles.seen({ ...ada, role: 'viewer' });
    expect(repository.writes).toEqual([
      ['w', 'ada', 'admin'],
      ['w', 'ada', 'viewer'],
    ]);
    await expect(roles.currentRole('w', 'ada', 'admin')).resolves.toBe('viewer');
    await expect(roles.currentRole('w', 'bob', 'editor')).resolves.toBe('editor');
  });

  it('never fails the request it was told about', async () => {
    const roles = new MemberRoles({
      record: () => Promise.reject(new Error('store down')),
      get: () => Promise.resolve(null),
    });
    await expect(roles.seen({ userId: 'ada', workspace: 'w', role: 'admin' })).resolves.toBeUndefined();
  });

  it('orders roles viewer < editor < admin', () => {
    expect(lowestRole('admin', 'editor')).toBe('editor');
    expect(lowestRole('admin', 'viewer', 'editor')).toBe('viewer');
    expect(lowestRole('admin')).toBe('admin');
  });
});
