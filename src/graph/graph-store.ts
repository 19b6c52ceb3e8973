import { MutableGraphDataSource } from './mutable-graph-data-source';
import { GraphDocument } from './graph.types';

export interface StoreHealth {
  status: 'up' | 'down';
  kind: 'sqlite' | 'arango';
  detail?: string;
}

/** What is stored about a node's vector: enough to skip unchanged nodes and never mix models. */
export interface StoredEmbeddingState {
  nodeKey: string;
  model: string | null;
  hash: string | null;
}

export interface NodeEmbeddingWrite {
  nodeKey: string;
  vector: Float32Array;
  model: string;
  /** Hash of the embedding text the vector was computed from. */
  hash: string;
}

/**
 * One store adapter (embedded SQLite or ArangoDB), chosen once at start from STORE.
 * Services never see which one: they get workspace-scoped data sources from forWorkspace().
 */
export interface GraphStore {
  readonly kind: 'sqlite' | 'arango';
  /** False on stores the service does not own (ArangoDB): PUT /graphs answers 409 read_only_store. */
  readonly supportsImport: boolean;
  forWorkspace(workspace: string): MutableGraphDataSource;
  /** Every graph of every workspace (admin CLIs), or of one workspace only, sorted by workspace and key. */
  listGraphs(workspace?: string): Promise<Array<{ workspace: string; graphKey: string }>>;
  /** Whether the store holds any graph at all, reading one at most (the demo seeder's question on every start). */
  hasGraphs(): Promise<boolean>;
  /** Atomically replaces the graph (and upserts the node configs into the workspace). */
  importGraph(workspace: string, document: GraphDocument): Promise<{ nodes: number; edges: number }>;
  /** The graph as stored, embeddings left out; null when absent from this workspace. */
  exportGraph(workspace: string, graphKey: string): Promise<GraphDocument | null>;
  getEmbeddingStates(workspace: string, graphKey: string): Promise<StoredEmbeddingState[]>;
  saveEmbeddings(workspace: string, graphKey: string, entries: NodeEmbeddingWrite[]): Promise<void>;
  /**
   * Makes a graph's search ready before its first question: the embedded store builds (or loads)
   * its in-memory indexes, BM25 and the vectors of `vectorModel`. Resolves once they are ready;
   * never throws. Absent where the database keeps the indexes itself (ArangoDB).
   */
  prepareSearch?(workspace: string, graphKey: string, vectorModel: string | null): Promise<void>;
  /**
   * After nodes of a graph were embedded: brings the graph's vector index of `vectorModel` up to date
   * where this instance keeps one, so the next question neither catches up nor waits for a rebuild.
   * Does nothing for a graph whose index is not kept. Never throws.
   */
  refreshVectorIndex?(workspace: string, graphKey: string, vectorModel: string): Promise<void>;
  /** prepareSearch for the large graphs an instance starts with (those its index budget can keep). Resolves with how many. */
  prepareLargeGraphs?(vectorModel: string | null): Promise<number>;
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}
