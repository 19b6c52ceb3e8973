import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/**
 * Thread types: a chat, or the run of an automation. Existing threads are chats.
 * The partial index serves the approval queue (GET /api/ai/approvals): only threads waiting for a human.
 */
export const THREAD_TYPE_MIGRATION: SqliteMigration = {
  version: 20,
  name: 'ai_thread_type',
  up(db) {
    db.exec(`
      ALTER TABLE ai_threads ADD COLUMN type TEXT NOT NULL DEFAULT 'chat' CHECK (type IN ('chat', 'automation'));
      ALTER TABLE ai_threads ADD COLUMN automation_id TEXT;
      CREATE INDEX ai_threads_waiting ON ai_threads (workspace, type, user_id) WHERE pending_interrupt IS NOT NULL;
    `);
  },
};
