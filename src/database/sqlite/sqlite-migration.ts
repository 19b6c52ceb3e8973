import type { Database } from 'better-sqlite3';

/** One schema change of the embedded store. `up` runs inside the runner's transaction: no BEGIN/COMMIT in it. */
export interface SqliteMigration {
  /** Strictly increasing, never reused: the runner records it in `schema_migrations`. */
  readonly version: number;
  /** Stable snake_case name, recorded with the version so two branches claiming one number are caught. */
  readonly name: string;
  up(db: Database): void;
}
