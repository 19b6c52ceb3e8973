import type { Database, Statement } from 'better-sqlite3';
import type { AlwaysSendList } from '../always-send';
import type { AlwaysSendDocument, AlwaysSendRepository } from '../always-send.repository';

interface AlwaysSendRow {
  node_keys: string;
  node_types: string;
  updated_time: number;
}

/**
 * AlwaysSendRepository on the embedded SQLite file (table of ALWAYS_SEND_MIGRATION): one row per (workspace, graph),
 * replaced whole by put. The connection belongs to the persistence module.
 */
export class SqliteAlwaysSendRepository implements AlwaysSendRepository {
  private readonly select: Statement<[string, string], AlwaysSendRow>;
  private readonly upsert: Statement<[string, string, string, string, number]>;

  constructor(db: Database) {
    this.select = db.prepare(
      'SELECT node_keys, node_types, updated_time FROM ai_always_send WHERE workspace = ? AND graph_key = ?',
    );
    this.upsert = db.prepare(`INSERT INTO ai_always_send (workspace, graph_key, node_keys, node_types, updated_time)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (workspace, graph_key) DO UPDATE SET node_keys = excluded.node_keys,
        node_types = excluded.node_types, updated_time = excluded.updated_time`);
  }

  async get(workspace: string, graphKey: string): Promise<AlwaysSendList | null> {
    const row = this.select.get(workspace, graphKey);
    return row
      ? {
          nodeKeys: JSON.parse(row.node_keys) as string[],
          nodeTypes: JSON.parse(row.node_types) as string[],
          updatedTime: row.updated_time,
        }
      : null;
  }

  async put(workspace: string, graphKey: string, list: AlwaysSendDocument, now: number): Promise<AlwaysSendList> {
    this.upsert.run(workspace, graphKey, JSON.stringify(list.nodeKeys), JSON.stringify(list.nodeTypes), now);
    return { nodeKeys: [...list.nodeKeys], nodeTypes: [...list.nodeTypes], updatedTime: now };
  }
}
