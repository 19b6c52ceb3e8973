/**
 * Injection token of the instance's ArangoDB connection (an arangojs `Database`, connected by
 * ArangoConnector), provided inside ArangoPersistenceModule only: the store adapters it builds there
 * inject it; everything else injects the stores (src/persistence/). The module closes it last.
 */
export const ARANGO_DATABASE = Symbol('ARANGO_DATABASE');
