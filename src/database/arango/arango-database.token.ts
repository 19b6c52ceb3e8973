/**
 * Injection token of the ArangoDB connection shared by every adapter on ArangoDB (graph store,
 * thread repository): an arangojs `Database`, connected once at start (retries, database created when
 * missing: ArangoConnector), or `null` when STORE is not arango. DatabaseModule owns and closes it.
 * Inject it as `@Inject(ARANGO_DATABASE) db: Database | null` (arangojs's Database).
 */
export const ARANGO_DATABASE = Symbol('ARANGO_DATABASE');
