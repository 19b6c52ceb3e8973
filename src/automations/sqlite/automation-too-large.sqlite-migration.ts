import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/**
 * A run may end skipped_too_large. SQLite cannot change a CHECK constraint in place: the runs table is rebuilt with
 * the same columns and indexes, and its rows copied.
 */
export const AUTOMATION_TOO_LARGE_MIGRATION: SqliteMigration = {
  version: 301,
  name: 'ai_automation_runs_skipped_too_large',
  up(db) {
    db.exec(`
      CREATE TABLE ai_automation_runs_next (
        workspace           TEXT    NOT NULL,
        run_id              TEXT    NOT NULL,
        automation_id       TEXT    NOT NULL,
        thread_id           TEXT,
        trigger             TEXT    NOT NULL CHECK (trigger IN ('schedule', 'manual')),
        slot_time           INTEGER,
        started_time        INTEGER NOT NULL,
        finished_time       INTEGER,
        outcome             TEXT    NOT NULL CHECK (outcome IN ('running', 'completed', 'interrupted', 'failed', 'skipped_budget', 'skipped_too_large')),
        prompt_tokens       INTEGER NOT NULL DEFAULT 0,
        completion_tokens   INTEGER NOT NULL DEFAULT 0,
        cached_tokens       INTEGER NOT NULL DEFAULT 0,
        total_tokens        INTEGER NOT NULL DEFAULT 0,
        cost_usd            REAL    NOT NULL DEFAULT 0,
        llm_calls           INTEGER NOT NULL DEFAULT 0,
        error_code          TEXT,
        error_message       TEXT,
        acting_user_id      TEXT,
        acting_role         TEXT CHECK (acting_role IN ('viewer', 'editor', 'admin')),
        acting_on_behalf_of TEXT,
        PRIMARY KEY (workspace, run_id)
      ) WITHOUT ROWID;
      INSERT INTO ai_automation_runs_next (workspace, run_id, automation_id, thread_id, trigger, slot_time, started_time,
        finished_time, outcome, prompt_tokens, completion_tokens, cached_tokens, total_tokens, cost_usd, llm_calls,
        error_code, error_message, acting_user_id, acting_role, acting_on_behalf_of)
      SELECT workspace, run_id, automation_id, thread_id, trigger, slot_time, started_time, finished_time, outcome,
        prompt_tokens, completion_tokens, cached_tokens, total_tokens, cost_usd, llm_calls, error_code, error_message,
        acting_user_id, acting_role, acting_on_behalf_of
      FROM ai_automation_runs;
      DROP TABLE ai_automation_runs;
      ALTER TABLE ai_automation_runs_next RENAME TO ai_automation_runs;
      CREATE INDEX ai_automation_runs_by_automation ON ai_automation_runs (workspace, automation_id, started_time);
      CREATE INDEX ai_automation_runs_by_thread ON ai_automation_runs (workspace, thread_id) WHERE thread_id IS NOT NULL;
    `);
  },
};
