import type { SqliteMigration } from '../../../database/sqlite/sqlite-migration';

/**
 * Provider configurations per workspace. The API key is only ever stored sealed (api_key_secret, AES-256-GCM);
 * at most one active configuration per workspace (partial unique index).
 */
export const PROVIDER_CONFIGS_MIGRATION: SqliteMigration = {
  version: 21,
  name: 'ai_provider_configs',
  up(db) {
    db.exec(`
      CREATE TABLE ai_provider_configs (
        workspace      TEXT    NOT NULL,
        config_id      TEXT    NOT NULL,
        name           TEXT    NOT NULL,
        provider       TEXT    NOT NULL,
        model          TEXT    NOT NULL,
        base_url       TEXT,
        api_key_secret TEXT,             -- sealed by SecretCipher, never the clear text
        api_key_last4  TEXT,
        active         INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
        created_time   INTEGER NOT NULL,
        updated_time   INTEGER NOT NULL,
        PRIMARY KEY (workspace, config_id),
        UNIQUE (workspace, name)
      ) WITHOUT ROWID;
      CREATE UNIQUE INDEX ai_provider_configs_one_active ON ai_provider_configs (workspace) WHERE active = 1;
    `);
  },
};
