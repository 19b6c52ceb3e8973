import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/**
 * Who an automation's runs act as: the last person who set its prompt or schedule, with
 * their role then, on the automation; the identity each run acted with, on the run.
 */
export const AUTOMATION_ACTING_MIGRATION: SqliteMigration = {
  version: 271,
  name: 'ai_automation_acting',
  up(db) {
    db.exec(`
      ALTER TABLE ai_automations ADD COLUMN prompt_editor_id TEXT;
      ALTER TABLE ai_automations ADD COLUMN prompt_editor_role TEXT CHECK (prompt_editor_role IN ('viewer', 'editor', 'admin'));
      ALTER TABLE ai_automation_runs ADD COLUMN acting_user_id TEXT;
      ALTER TABLE ai_automation_runs ADD COLUMN acting_role TEXT CHECK (acting_role IN ('viewer', 'editor', 'admin'));
      ALTER TABLE ai_automation_runs ADD COLUMN acting_on_behalf_of TEXT;
    `);
  },
};
