/**
 * Injection token of the embedded store's connection: a better-sqlite3 `Database` opened on
 * `<DATA_DIR>/ai.sqlite` with every migration applied, or `null` when STORE is not sqlite.
 * Inject it as `@Inject(SQLITE_DATABASE) db: Database | null`.
 */
export const SQLITE_DATABASE = Symbol('SQLITE_DATABASE');
