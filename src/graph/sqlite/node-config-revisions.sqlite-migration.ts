import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/**
 * A revision per workspace, bumped by every write of its node configs: each process keeps the
 * workspace's decoded configs and checks this one row per read, so a write by another process on
 * the same file is seen at once. No row: revision 0 (no config written since this table exists).
 */
export const NODE_CONFIG_REVISIONS_MIGRATION: SqliteMigration = {
  version: 3,
  name: 'node_config_revisions',
  up(db) {
    db.exec(`
      CREATE TABLE node_config_revisions (
        workspace TEXT    PRIMARY KEY,
        revision  INTEGER NOT NULL
      ) WITHOUT ROWID;
    `);
  },
};
