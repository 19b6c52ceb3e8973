import { Database } from 'arangojs';
import { ArangoConnectionSettings, ArangoConnector } from '../../src/database/arango/arango-connector';
import { ArangoGraphStore } from '../../src/graph/arango/arango-graph.store';
import { GraphDocument } from '../../src/graph/graph.types';
import { GraphStore, NodeEmbeddingWrite, StoredEmbeddingState, StoreHealth } from '../../src/graph/graph-store';
import { MutableGraphDataSource } from '../../src/graph/mutable-graph-data-source';

/**
 * A GraphStore for running the store contract on ArangoDB: every test gets its own fresh database
 * (named after the run, created on the test's first call), and calls are routed to the real
 * ArangoGraphStore of the running test's database.
 *
 * Why: the contract imports the demo graph (key "nba-workflow", config keys "filter", "api-call", …)
 * into a new workspace in nearly every test, as the embedded store allows. In ArangoDB a key is unique
 * per collection, so a second workspace cannot hold the same graph or config key (the adapter answers
 * conflict). One database per test keeps tests independent while every workspace of one test still
 * shares a database, so the workspace-isolation checks run against the adapter's real guards.
 */
export class PerTestArangoGraphStore implements GraphStore {
  readonly kind = 'arango' as const;
  readonly supportsImport = false;

  private readonly stores = new Map<string, Promise<ArangoGraphStore>>();
  private readonly databases: string[] = [];
  private readonly connections: Database[] = [];

  constructor(
    private readonly settings: ArangoConnectionSettings,
    /** Prefix of every database this run creates, e.g. "graph_ai_contract_lx2k9_ab12". */
    private readonly runPrefix: string,
    /** The running test's name (jest: `() => expect.getState().currentTestName`); undefined outside a test. */
    private readonly currentTestName: () => string | undefined,
  ) {}

  forWorkspace(workspace: string): MutableGraphDataSource {
    // Every data source method is async: resolve the test's store at call time.
    return new Proxy({ workspace } as MutableGraphDataSource, {
      get: (target, property) =>
        property === 'workspace'
          ? target.workspace
          : async (...args: unknown[]) => {
              const source = (await this.current()).forWorkspace(workspace) as unknown as Record<
                PropertyKey,
                (...a: unknown[]) => unknown
              >;
              return source[property](...args);
            },
    });
  }

  async listGraphs(workspace?: string): Promise<Array<{ workspace: string; graphKey: string }>> {
    return (await this.current()).listGraphs(workspace);
  }

  async hasGraphs(): Promise<boolean> {
    return (await this.current()).hasGraphs();
  }

  async importGraph(workspace: string, document: GraphDocument): Promise<{ nodes: number; edges: number }> {
    return (await this.current()).importGraph(workspace, document);
  }

  async exportGraph(workspace: string, graphKey: string): Promise<GraphDocument | null> {
    return (await this.current()).exportGraph(workspace, graphKey);
  }

  async getEmbeddingStates(workspace: string, graphKey: string): Promise<StoredEmbeddingState[]> {
    return (await this.current()).getEmbeddingStates(workspace, graphKey);
  }

  async saveEmbeddings(workspace: string, graphKey: string, entries: NodeEmbeddingWrite[]): Promise<void> {
    return (await this.current()).saveEmbeddings(workspace, graphKey, entries);
  }

  async health(): Promise<StoreHealth> {
    return (await this.current()).health();
  }

  async close(): Promise<void> {
    for (const store of this.stores.values()) await (await store.catch(() => null))?.close();
    this.stores.clear();
    for (const connection of this.connections.splice(0)) connection.close();
  }

  /** Drops every database this run created. */
  async dropDatabases(): Promise<void> {
    const system = new Database({
      url: this.settings.url,
      databaseName: '_system',
      auth: { username: this.settings.user, password: this.settings.password ?? '' },
    });
    try {
      for (const name of this.databases) await system.dropDatabase(name).catch(() => false);
    } finally {
      system.close();
    }
  }

  private current(): Promise<ArangoGraphStore> {
    const test = this.currentTestName() ?? '(suite)';
    let store = this.stores.get(test);
    if (!store) {
      const database = `${this.runPrefix}_${this.stores.size + 1}`;
      this.databases.push(database);
      store = this.open(database);
      this.stores.set(test, store);
    }
    return store;
  }

  /** As the service opens it (ArangoPersistenceModule): connect (the database is created), then the store on that connection. */
  private async open(database: string): Promise<ArangoGraphStore> {
    const db = await new ArangoConnector(
      { ...this.settings, database },
      { attempts: 3, initialDelayMs: 200, maxDelayMs: 1000 },
    ).connect();
    this.connections.push(db);
    return ArangoGraphStore.open(db, { searchWaitForSync: true });
  }
}
