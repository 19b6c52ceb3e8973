import type { SqliteMigration } from '../../database/sqlite/sqlite-migration';

/** `YYYY-MM` of `time` in `timeZone` (UTC when the runtime does not know the zone). */
function monthOf(time: number, timeZone: string): string {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit' });
  } catch {
    format = new Intl.DateTimeFormat('en-CA', { timeZone: 'UTC', year: 'numeric', month: '2-digit' });
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(time)).map((part) => [part.type, part.value]));
  return `${parts.year}-${parts.month}`;
}

/**
 * The automations' bookkeeping beyond their runs:
 *  - `ai_automation_spend`: what each automation spent per month of its zone, added to by every recorded
 *    usage, never pruned with the runs, so the monthly budget keeps counting whatever the retention
 *    deletes. Filled here from the runs already stored (their cost in the month they started).
 *  - `disabled_reason`: why the service disabled an automation (a schedule that became unusable).
 *  - indexes of the scheduler's looks: the runs in progress per workspace (the run limits), the runs by
 *    start (retention), the interrupted runs (their expiry and supersession).
 */
export const AUTOMATION_SPEND_MIGRATION: SqliteMigration = {
  version: 281,
  name: 'ai_automation_spend',
  up(db) {
    db.exec(`
      ALTER TABLE ai_automations ADD COLUMN disabled_reason TEXT;
      CREATE INDEX ai_automations_running ON ai_automations (workspace) WHERE running_run_id IS NOT NULL;

      CREATE TABLE ai_automation_spend (
        workspace     TEXT NOT NULL,
        automation_id TEXT NOT NULL,
        month         TEXT NOT NULL, -- YYYY-MM in the automation's time zone
        cost_usd      REAL NOT NULL DEFAULT 0,
        PRIMARY KEY (workspace, automation_id, month)
      ) WITHOUT ROWID;

      CREATE INDEX ai_automation_runs_by_start ON ai_automation_runs (started_time);
      CREATE INDEX ai_automation_runs_interrupted ON ai_automation_runs (workspace, automation_id, started_time)
        WHERE outcome = 'interrupted';
    `);
    const runs = db
      .prepare(
        `SELECT r.workspace, r.automation_id, r.started_time, r.cost_usd, a.timezone FROM ai_automation_runs r
         JOIN ai_automations a ON a.workspace = r.workspace AND a.automation_id = r.automation_id WHERE r.cost_usd > 0`,
      )
      .all() as Array<{
      workspace: string;
      automation_id: string;
      started_time: number;
      cost_usd: number;
      timezone: string;
    }>;
    const add =
      db.prepare(`INSERT INTO ai_automation_spend (workspace, automation_id, month, cost_usd) VALUES (?, ?, ?, ?)
      ON CONFLICT (workspace, automation_id, month) DO UPDATE SET cost_usd = cost_usd + excluded.cost_usd`);
    for (const run of runs)
      add.run(run.workspace, run.automation_id, monthOf(run.started_time, run.timezone), run.cost_usd);
  },
};
