import { AppError } from '../../errors/app-error';
import { deepFreeze } from '../deep-freeze';
import { GraphEdge, GraphNode } from '../graph.types';
import { LiveGraphChanges } from './live-graph-changes';

/**
 * The unsaved live state of ONE graph, as the sync server pushed it:
 * upserted nodes and edges (whole documents, which win over the store's), and deleted node and edge
 * keys (hidden everywhere, edges of a deleted node included). A key is either upserted or deleted,
 * never both: the latest change wins. Documents are deep-frozen plain copies, shared read-only with
 * every reader. `version` grows with every change, so derived data (the overlay's search index) can
 * be cached per version.
 */
export class GraphOverlay {
  readonly nodes = new Map<string, GraphNode>();
  readonly edges = new Map<string, GraphEdge>();
  readonly deletedNodes = new Set<string>();
  readonly deletedEdges = new Set<string>();
  version = 0;

  constructor(public touchedAt: number) {}

  /** Upserts plus deletions. */
  get entryCount(): number {
    return this.nodes.size + this.edges.size + this.deletedNodes.size + this.deletedEdges.size;
  }

  get isEmpty(): boolean {
    return this.entryCount === 0;
  }

  /**
   * True when the overlay may change which nodes are connected: a deleted node, or any edge change.
   * Without one, neighbourhoods are the store's (with the overlay's node documents).
   */
  get changesStructure(): boolean {
    return this.deletedNodes.size > 0 || this.deletedEdges.size > 0 || this.edges.size > 0;
  }

  /** True when lexical or vector hits may differ from the store's. */
  get changesNodes(): boolean {
    return this.nodes.size > 0 || this.deletedNodes.size > 0;
  }

  /** Entries the overlay would hold after `changes` (without applying them). */
  entryCountAfter(changes: LiveGraphChanges): number {
    let added = 0;
    for (const node of changes.upsertNodes)
      if (!this.nodes.has(node._key) && !this.deletedNodes.has(node._key)) added += 1;
    for (const key of changes.deleteNodes) if (!this.nodes.has(key) && !this.deletedNodes.has(key)) added += 1;
    for (const edge of changes.upsertEdges)
      if (!this.edges.has(edge._key) && !this.deletedEdges.has(edge._key)) added += 1;
    for (const key of changes.deleteEdges) if (!this.edges.has(key) && !this.deletedEdges.has(key)) added += 1;
    return this.entryCount + added;
  }

  /** Applies one batch; a key both upserted and deleted in the same batch is a bad request (nothing applied). */
  apply(changes: LiveGraphChanges, now: number): void {
    assertDisjoint(changes);
    for (const key of changes.deleteNodes) {
      this.nodes.delete(key);
      this.deletedNodes.add(key);
    }
    for (const key of changes.deleteEdges) {
      this.edges.delete(key);
      this.deletedEdges.add(key);
    }
    for (const node of changes.upsertNodes) {
      this.deletedNodes.delete(node._key);
      this.nodes.set(node._key, deepFreeze(node));
    }
    for (const edge of changes.upsertEdges) {
      this.deletedEdges.delete(edge._key);
      this.edges.set(edge._key, deepFreeze(edge));
    }
    this.version += 1;
    this.touchedAt = now;
  }

  /** Forgets the overlay's entries for these keys (they were saved): the store is the truth for them again. */
  forget(nodeKeys: Iterable<string>, edgeKeys: Iterable<string>): void {
    let changed = false;
    for (const key of nodeKeys) changed = this.nodes.delete(key) || this.deletedNodes.delete(key) || changed;
    for (const key of edgeKeys) changed = this.edges.delete(key) || this.deletedEdges.delete(key) || changed;
    if (changed) this.version += 1;
  }

  /** False for an edge the overlay deleted, or one whose source or target it deleted. */
  isEdgeVisible(edge: GraphEdge): boolean {
    return (
      !this.deletedEdges.has(edge._key) && !this.deletedNodes.has(edge.source) && !this.deletedNodes.has(edge.target)
    );
  }
}

function assertDisjoint(changes: LiveGraphChanges): void {
  const deletedNodes = new Set(changes.deleteNodes);
  const deletedEdges = new Set(changes.deleteEdges);
  const node = changes.upsertNodes.find((candidate) => deletedNodes.has(candidate._key));
  if (node)
    throw AppError.badRequest(`Node "${node._key}" is both upserted and deleted in one change`, { nodeKey: node._key });
  const edge = changes.upsertEdges.find((candidate) => deletedEdges.has(candidate._key));
  if (edge)
    throw AppError.badRequest(`Edge "${edge._key}" is both upserted and deleted in one change`, { edgeKey: edge._key });
}
