import type { SqliteMigration } from '../../../database/sqlite/sqlite-migration';

/** The latest role each person of a workspace presented. */
export const MEMBER_ROLES_MIGRATION: SqliteMigration = {
  version: 272,
  name: 'ai_member_roles',
  up(db) {
    db.exec(`
      CREATE TABLE ai_member_roles (
        workspace TEXT    NOT NULL,
        user_id   TEXT    NOT NULL,
        role      TEXT    NOT NULL CHECK (role IN ('viewer', 'editor', 'admin')),
        seen_time INTEGER NOT NULL,
        PRIMARY KEY (workspace, user_id)
      ) WITHOUT ROWID;
    `);
  },
};
