import type { SqliteMigration } from '../../../database/sqlite/sqlite-migration';

/** A provider configuration's own model prices: JSON, NULL when it has none. */
export const PROVIDER_CONFIG_PRICING_MIGRATION: SqliteMigration = {
  version: 280,
  name: 'ai_provider_configs_pricing',
  up(db) {
    db.exec('ALTER TABLE ai_provider_configs ADD COLUMN pricing TEXT');
  },
};
