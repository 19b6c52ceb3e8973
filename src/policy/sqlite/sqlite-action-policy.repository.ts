import type { Database, Statement } from 'better-sqlite3';
import { ActionPolicy, toActionPolicy } from '../action-policy';
import { ActionPolicyDocument, ActionPolicyRepository } from '../action-policy.repository';

interface PolicyRow {
  document: string;
  updated_time: number;
}

/**
 * ActionPolicyRepository on the embedded SQLite file (table of ACTION_POLICIES_MIGRATION): one row
 * per workspace, replaced whole by put. The connection belongs to DatabaseModule.
 */
export class SqliteActionPolicyRepository implements ActionPolicyRepository {
  private readonly select: Statement<[string], PolicyRow>;
  private readonly upsert: Statement<[string, string, number]>;

  constructor(db: Database) {
    this.select = db.prepare('SELECT document, updated_time FROM ai_action_policies WHERE workspace = ?');
    this.upsert = db.prepare(`INSERT INTO ai_action_policies (workspace, document, updated_time) VALUES (?, ?, ?)
      ON CONFLICT (workspace) DO UPDATE SET document = excluded.document, updated_time = excluded.updated_time`);
  }

  async get(workspace: string): Promise<ActionPolicy | null> {
    const row = this.select.get(workspace);
    return row ? toActionPolicy({ ...(JSON.parse(row.document) as object), updatedTime: row.updated_time }) : null;
  }

  async put(workspace: string, policy: ActionPolicyDocument, now: number): Promise<ActionPolicy> {
    const document = { default: policy.default, roles: policy.roles };
    this.upsert.run(workspace, JSON.stringify(document), now);
    return toActionPolicy({ ...document, updatedTime: now });
  }
}
