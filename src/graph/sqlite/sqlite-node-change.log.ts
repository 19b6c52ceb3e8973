import { SqliteGraphStatements } from './sqlite-graph.statements';

/** Below this many nodes, any number of changes is applied node by node. */
export const INCREMENTAL_MIN_NODES = 64;
/** Share of an index's nodes beyond which a full build is cheaper than node-by-node updates. */
const INCREMENTAL_MAX_SHARE = 0.1;

/**
 * Which node keys changed between two states of a graph, as SqliteGraphWriter records them in the
 * transaction of each write: per revision the nodes it created, changed or deleted
 * (graph_node_changes), per embedding revision the nodes whose vector it set (graph_embedding_changes).
 * Whichever process wrote them, an in-memory index catches up on just those nodes; a range with a
 * revision that has no record answers null (rebuild).
 */
export class SqliteNodeChangeLog {
  constructor(private readonly statements: SqliteGraphStatements) {}

  /** True when `changed` nodes are few enough, for an index of `indexed` nodes, to apply one by one rather than rebuild. */
  static worthApplying(changed: number, indexed: number): boolean {
    return changed <= Math.max(INCREMENTAL_MIN_NODES, indexed * INCREMENTAL_MAX_SHARE);
  }

  /** Node keys touched by revisions (from, to], or null when one of them has no record. */
  nodeKeysChanged(graphId: number, from: number, to: number): Set<string> | null {
    return to < from ? null : keysOf(this.statements.nodeChangesBetween.all(graphId, from, to), to - from);
  }

  /** Node keys whose vector was set by embedding revisions (from, to], or null when one of them has no record. */
  vectorKeysSet(graphId: number, from: number, to: number): Set<string> | null {
    return to < from ? null : keysOf(this.statements.embeddingChangesBetween.all(graphId, from, to), to - from);
  }
}

function keysOf(rows: Array<{ nodeKeys: string }>, expected: number): Set<string> | null {
  if (rows.length !== expected) return null;
  const keys = new Set<string>();
  for (const row of rows) for (const key of JSON.parse(row.nodeKeys) as string[]) keys.add(key);
  return keys;
}
