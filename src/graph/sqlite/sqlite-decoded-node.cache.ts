import { deepFreeze } from '../deep-freeze';
import { GraphNode } from '../graph.types';
import { decodeDocument } from './sqlite-graph.codec';
import { GraphRef, KeyedDocumentRow } from './sqlite-graph.statements';

/** Decoded nodes kept per process, over every graph (a node document is about 1 KB of JSON, 2 to 4 KB decoded). */
export const DEFAULT_DECODED_NODES_KEPT = 4_096;

interface CachedNode {
  revision: number;
  node: GraphNode;
}

/**
 * Decoded node documents that the reads of a question share: its lexical hits, its vector hits and
 * the neighbourhoods of its best hits are mostly the same nodes, and the next question on the same
 * part of the graph reads them again. A node is kept for one graph id + revision: any write of the
 * graph moves its revision, and every caller reads the graph's current GraphRef first (one cheap
 * query), so a write by this process or by another one on the same file is never answered from here.
 * Least recently used nodes go first beyond `maxNodes`. Values are deep-frozen: every reader shares
 * them.
 */
export class SqliteDecodedNodeCache {
  private readonly nodes = new Map<string, CachedNode>();

  constructor(private readonly maxNodes = DEFAULT_DECODED_NODES_KEPT) {}

  /**
   * The nodes of `keys` that exist at `ref`, by key. `read` gives the stored documents of the keys not
   * kept (a key without a row is a node that does not exist: absent from the answer).
   */
  byKeys(
    ref: GraphRef,
    keys: readonly string[],
    read: (missing: string[]) => KeyedDocumentRow[],
  ): Map<string, GraphNode> {
    const found = new Map<string, GraphNode>();
    const missing = new Set<string>();
    for (const key of keys) {
      const id = cacheKeyOf(ref.id, key);
      const entry = this.nodes.get(id);
      if (entry && entry.revision === ref.revision) {
        found.set(key, entry.node);
        // Re-inserting moves the entry to the end: Map order is the recency order.
        this.nodes.delete(id);
        this.nodes.set(id, entry);
      } else missing.add(key);
    }
    if (missing.size === 0) return found;
    for (const row of read([...missing])) {
      const node = deepFreeze(decodeDocument<GraphNode>(row.document));
      found.set(row.key, node);
      const id = cacheKeyOf(ref.id, row.key);
      this.nodes.delete(id);
      this.nodes.set(id, { revision: ref.revision, node });
    }
    while (this.nodes.size > this.maxNodes) this.nodes.delete(this.nodes.keys().next().value as string);
    return found;
  }

  get size(): number {
    return this.nodes.size;
  }

  clear(): void {
    this.nodes.clear();
  }
}

function cacheKeyOf(graphId: number, nodeKey: string): string {
  return `${graphId}\u0000${nodeKey}`;
}
