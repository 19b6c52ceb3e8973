import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/** One action policy per workspace: the levels and role overrides as JSON. */
export const ACTION_POLICIES_MIGRATION: SqliteMigration = {
  version: 10,
  name: 'ai_action_policies',
  up(db) {
    db.exec(`
      CREATE TABLE ai_action_policies (
        workspace    TEXT    PRIMARY KEY,
        document     TEXT    NOT NULL, -- { default, roles } as JSON
        updated_time INTEGER NOT NULL
      ) WITHOUT ROWID;
    `);
  },
};
