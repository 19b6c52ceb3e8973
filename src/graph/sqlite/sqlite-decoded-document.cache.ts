import { deepFreeze } from '../deep-freeze';
import { Graph, NodeTypeConfig } from '../graph.types';
import { SqliteDecodedNodeCache } from './sqlite-decoded-node.cache';
import { GraphRef } from './sqlite-graph.statements';

interface CachedGraph {
  graphId: number;
  revision: number;
  graph: Graph;
}

interface CachedConfigs {
  revision: number;
  configs: NodeTypeConfig[];
}

/**
 * Decoded documents every retrieval reads, kept per process so a question does not parse them again:
 * the Graph document of the most recently read graphs (valid for one graph id + revision), the
 * node configs of the most recently read workspaces (valid for one configs revision), and the most
 * recently read node documents (`nodes`, valid for one graph id + revision). The caller
 * reads the current revision first (one cheap query), so a write by this process or another one on
 * the same file is seen at once. Values are deep-frozen: every reader shares them.
 */
export class SqliteDecodedDocumentCache {
  private readonly graphs = new Map<string, CachedGraph>();
  private readonly configs = new Map<string, CachedConfigs>();
  readonly nodes = new SqliteDecodedNodeCache();

  constructor(private readonly maxEntries = 64) {}

  /** `decode` reads and parses the stored document (null when the row is gone: nothing is cached). */
  graph(workspace: string, graphKey: string, ref: GraphRef, decode: () => Graph | null): Graph | null {
    const key = `${workspace}\u0000${graphKey}`;
    let entry = this.graphs.get(key);
    if (!entry || entry.graphId !== ref.id || entry.revision !== ref.revision) {
      const graph = decode();
      if (!graph) return null;
      entry = { graphId: ref.id, revision: ref.revision, graph: deepFreeze(graph) };
    }
    touch(this.graphs, key, entry, this.maxEntries);
    return entry.graph;
  }

  nodeConfigs(workspace: string, revision: number, decode: () => NodeTypeConfig[]): NodeTypeConfig[] {
    let entry = this.configs.get(workspace);
    if (!entry || entry.revision !== revision) entry = { revision, configs: deepFreeze(decode()) };
    touch(this.configs, workspace, entry, this.maxEntries);
    return entry.configs;
  }

  clear(): void {
    this.graphs.clear();
    this.configs.clear();
    this.nodes.clear();
  }
}

/** Re-inserts the entry at the end (Map order is the recency order) and drops the least recently used beyond `max`. */
function touch<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as string);
}
