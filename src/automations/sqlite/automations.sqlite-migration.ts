import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/**
 * Automations and their runs. The scheduler's state lives on the automation row (next slot, the run
 * holding it and its lease), so a claim is one guarded UPDATE: of several instances sharing the file,
 * exactly one moves the slot forward. The partial index serves the due scan.
 */
export const AUTOMATIONS_MIGRATION: SqliteMigration = {
  version: 22,
  name: 'ai_automations',
  up(db) {
    db.exec(`
      CREATE TABLE ai_automations (
        workspace              TEXT    NOT NULL,
        automation_id          TEXT    NOT NULL,
        user_id                TEXT    NOT NULL, -- the creator: owner of the runs' threads
        user_role              TEXT    NOT NULL CHECK (user_role IN ('viewer', 'editor', 'admin')),
        name                   TEXT    NOT NULL,
        graph_key              TEXT    NOT NULL,
        prompt                 TEXT    NOT NULL,
        cron                   TEXT    NOT NULL,
        timezone               TEXT    NOT NULL,
        enabled                INTEGER NOT NULL CHECK (enabled IN (0, 1)),
        max_cost_usd_per_run   REAL,
        max_cost_usd_per_month REAL,
        provider_config_id     TEXT,
        next_run_time          INTEGER,          -- NULL while disabled
        running_run_id         TEXT,             -- the run holding the automation
        run_lease_expires_at   INTEGER,
        created_time           INTEGER NOT NULL,
        updated_time           INTEGER NOT NULL,
        PRIMARY KEY (workspace, automation_id)
      ) WITHOUT ROWID;
      CREATE INDEX ai_automations_due ON ai_automations (next_run_time) WHERE enabled = 1 AND next_run_time IS NOT NULL;

      CREATE TABLE ai_automation_runs (
        workspace         TEXT    NOT NULL,
        run_id            TEXT    NOT NULL,
        automation_id     TEXT    NOT NULL,
        thread_id         TEXT,
        trigger           TEXT    NOT NULL CHECK (trigger IN ('schedule', 'manual')),
        slot_time         INTEGER,
        started_time      INTEGER NOT NULL,
        finished_time     INTEGER,
        outcome           TEXT    NOT NULL CHECK (outcome IN ('running', 'completed', 'interrupted', 'failed', 'skipped_budget')),
        prompt_tokens     INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        cached_tokens     INTEGER NOT NULL DEFAULT 0,
        total_tokens      INTEGER NOT NULL DEFAULT 0,
        cost_usd          REAL    NOT NULL DEFAULT 0,
        llm_calls         INTEGER NOT NULL DEFAULT 0,
        error_code        TEXT,
        error_message     TEXT,
        PRIMARY KEY (workspace, run_id)
      ) WITHOUT ROWID;
      CREATE INDEX ai_automation_runs_by_automation ON ai_automation_runs (workspace, automation_id, started_time);
      CREATE INDEX ai_automation_runs_by_thread ON ai_automation_runs (workspace, thread_id) WHERE thread_id IS NOT NULL;
    `);
  },
};
