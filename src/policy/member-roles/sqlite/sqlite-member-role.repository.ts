import type { Database, Statement } from 'better-sqlite3';
import type { Role } from '../../../auth/principal';
import type { MemberRoleRepository, SeenRole } from '../member-role.repository';

/** MemberRoleRepository on the embedded SQLite file (`ai_member_roles`): one row per person and workspace. */
export class SqliteMemberRoleRepository implements MemberRoleRepository {
  private readonly upsert: Statement<[string, string, Role, number]>;
  private readonly select: Statement<[string, string], { role: Role; seenTime: number }>;

  constructor(db: Database) {
    this.upsert = db.prepare(`INSERT INTO ai_member_roles (workspace, user_id, role, seen_time) VALUES (?, ?, ?, ?)
      ON CONFLICT (workspace, user_id) DO UPDATE SET role = excluded.role, seen_time = excluded.seen_time
      WHERE excluded.seen_time >= ai_member_roles.seen_time`);
    this.select = db.prepare(
      'SELECT role, seen_time AS seenTime FROM ai_member_roles WHERE workspace = ? AND user_id = ?',
    );
  }

  async record(workspace: string, userId: string, role: Role, seenTime: number): Promise<void> {
    this.upsert.run(workspace, userId, role, seenTime);
  }

  async get(workspace: string, userId: string): Promise<SeenRole | null> {
    return this.select.get(workspace, userId) ?? null;
  }
}
