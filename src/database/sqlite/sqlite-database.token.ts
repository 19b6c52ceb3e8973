/**
 * Injection token of the embedded store's connection: a better-sqlite3 `Database` opened on
 * `<DATA_DIR>/ai.sqlite` with every migration applied, provided inside SqlitePersistenceModule only:
 * the store adapters it builds there inject it; everything else injects the stores (src/persistence/).
 * The module closes it last.
 */
export const SQLITE_DATABASE = Symbol('SQLITE_DATABASE');
