import type { DocumentFingerprint } from '../conversation/proposal-preview';
import { GraphChangeSet } from '../graph/graph-change-set';
import { GraphChangePlanner } from '../graph/graph-change.planner';
import type { GraphEdge, GraphNode } from '../graph/graph.types';
import { fingerprintOf } from './document.fingerprint';

/** Which documents a snapshot holds: nodes and edges by key, and every edge touching some nodes. */
export interface SnapshotKeys {
  nodes: ReadonlySet<string>;
  edges: ReadonlySet<string>;
  /** Nodes whose touching edges are read too (a deletion removes them with the node). */
  edgesOfNodes: ReadonlySet<string>;
}

/** Where a snapshot is read from: a graph as the user sees it (the live overlay on the store), or the store alone. */
export interface SnapshotSource {
  nodes(nodeKeys: string[]): Promise<GraphNode[]>;
  edges(edgeKeys: string[]): Promise<GraphEdge[]>;
  edgesOfNodes(nodeKeys: string[]): Promise<GraphEdge[]>;
}

/** A snapshot's fingerprints: what a write checks, inside its transaction, the store still holds. */
export interface SnapshotFingerprints {
  nodes: Record<string, DocumentFingerprint>;
  edges: Record<string, DocumentFingerprint>;
  /** Node → the keys of the edges touching it, sorted. */
  edgesOf: Record<string, string[]>;
}

const planner = new GraphChangePlanner();

/**
 * The documents of some nodes and edges of one graph at one moment (null: absent), in memory. Change sets are
 * applied to it as a store would (GraphChangePlanner's checks and order), so a series of reverts can be planned and
 * checked before one write does them all.
 */
export class GraphSnapshot {
  private constructor(
    private readonly graphKey: string,
    private readonly nodeDocs: Map<string, GraphNode | null>,
    private readonly edgeDocs: Map<string, GraphEdge | null>,
    /** Node → keys of the edges touching it, for the nodes whose edges were read. */
    private readonly touching: Map<string, Set<string>>,
  ) {}

  static async read(graphKey: string, source: SnapshotSource, keys: SnapshotKeys): Promise<GraphSnapshot> {
    const [nodes, edges, touching] = await Promise.all([
      keys.nodes.size > 0 ? source.nodes([...keys.nodes]) : [],
      keys.edges.size > 0 ? source.edges([...keys.edges]) : [],
      keys.edgesOfNodes.size > 0 ? source.edgesOfNodes([...keys.edgesOfNodes]) : [],
    ]);
    return GraphSnapshot.of(graphKey, keys, nodes, [...edges, ...touching]);
  }

  /** From documents read elsewhere (inside a store's transaction). */
  static of(graphKey: string, keys: SnapshotKeys, nodes: GraphNode[], edges: GraphEdge[]): GraphSnapshot {
    const nodeDocs = new Map<string, GraphNode | null>([...keys.nodes].map((key) => [key, null]));
    for (const node of nodes) nodeDocs.set(node._key, node);
    const edgeDocs = new Map<string, GraphEdge | null>([...keys.edges].map((key) => [key, null]));
    const touching = new Map<string, Set<string>>([...keys.edgesOfNodes].map((key) => [key, new Set<string>()]));
    for (const edge of edges) {
      edgeDocs.set(edge._key, edge);
      touching.get(edge.source)?.add(edge._key);
      touching.get(edge.target)?.add(edge._key);
    }
    return new GraphSnapshot(graphKey, nodeDocs, edgeDocs, touching);
  }

  node(key: string): GraphNode | null {
    return this.nodeDocs.get(key) ?? null;
  }

  edge(key: string): GraphEdge | null {
    return this.edgeDocs.get(key) ?? null;
  }

  /** Keys of the edges touching `nodeKey` (only for nodes whose edges were read). */
  edgesOf(nodeKey: string): string[] {
    return [...(this.touching.get(nodeKey) ?? [])].sort();
  }

  /** Every node and edge key it holds. */
  keys(): SnapshotKeys {
    return {
      nodes: new Set(this.nodeDocs.keys()),
      edges: new Set(this.edgeDocs.keys()),
      edgesOfNodes: new Set(this.touching.keys()),
    };
  }

  fingerprints(): SnapshotFingerprints {
    const nodes: Record<string, DocumentFingerprint> = {};
    for (const [key, node] of this.nodeDocs) nodes[key] = fingerprintOf(node);
    const edges: Record<string, DocumentFingerprint> = {};
    for (const [key, edge] of this.edgeDocs) edges[key] = fingerprintOf(edge);
    const edgesOf: Record<string, string[]> = {};
    for (const key of this.touching.keys()) edgesOf[key] = this.edgesOf(key);
    return { nodes, edges, edgesOf };
  }

  clone(): GraphSnapshot {
    return new GraphSnapshot(
      this.graphKey,
      new Map(this.nodeDocs),
      new Map(this.edgeDocs),
      new Map([...this.touching].map(([key, edges]) => [key, new Set(edges)])),
    );
  }

  /**
   * Applies a change set in memory as a store would (the planner's checks: not_found, conflict, bad_request thrown
   * before anything changes). Every node and edge it names must be in the snapshot, and every deleted node's edges.
   */
  apply(changes: GraphChangeSet): void {
    const plan = planner.plan(this.graphKey, changes, {
      getNode: (key) => this.node(key),
      getEdge: (key) => this.edge(key),
    });
    for (const key of plan.edgeKeysToDelete) this.removeEdge(key);
    for (const key of plan.nodeKeysToDelete) {
      for (const edgeKey of this.edgesOf(key)) this.removeEdge(edgeKey);
      this.nodeDocs.set(key, null);
    }
    for (const node of plan.nodesToCreate) this.nodeDocs.set(node._key, node);
    for (const { after } of plan.nodesToUpdate) this.nodeDocs.set(after._key, after);
    for (const edge of plan.edgesToCreate) {
      this.edgeDocs.set(edge._key, edge);
      this.touching.get(edge.source)?.add(edge._key);
      this.touching.get(edge.target)?.add(edge._key);
    }
  }

  private removeEdge(key: string): void {
    const edge = this.edgeDocs.get(key);
    this.edgeDocs.set(key, null);
    if (!edge) return;
    this.touching.get(edge.source)?.delete(key);
    this.touching.get(edge.target)?.delete(key);
  }
}

/** The documents a change set reads or writes: its nodes and edges, the ends of its edges, the edges of its deletions. */
export function keysOfChanges(changes: GraphChangeSet): SnapshotKeys {
  const nodes = new Set<string>([
    ...changes.nodesToCreate.map((node) => node._key),
    ...changes.nodeKeysToDelete,
    ...changes.instructions.map((instruction) => instruction.nodeKey),
    ...changes.edgesToCreate.flatMap((edge) => [edge.source, edge.target]),
  ]);
  const edges = new Set<string>([...changes.edgesToCreate.map((edge) => edge._key), ...changes.edgeKeysToDelete]);
  return { nodes, edges, edgesOfNodes: new Set(changes.nodeKeysToDelete) };
}

/** Both key sets together. */
export function unionKeys(...all: SnapshotKeys[]): SnapshotKeys {
  return {
    nodes: new Set(all.flatMap((keys) => [...keys.nodes])),
    edges: new Set(all.flatMap((keys) => [...keys.edges])),
    edgesOfNodes: new Set(all.flatMap((keys) => [...keys.edgesOfNodes])),
  };
}

/** The first difference between two snapshots' fingerprints (what a write found moved), or null when they agree. */
export function fingerprintDifference(expected: SnapshotFingerprints, actual: SnapshotFingerprints): string | null {
  for (const [key, fingerprint] of Object.entries(expected.nodes))
    if ((actual.nodes[key] ?? null) !== fingerprint) return `node ${key}`;
  for (const [key, fingerprint] of Object.entries(expected.edges))
    if ((actual.edges[key] ?? null) !== fingerprint) return `edge ${key}`;
  for (const [key, edges] of Object.entries(expected.edgesOf))
    if ((actual.edgesOf[key] ?? []).join('\u0000') !== edges.join('\u0000')) return `edges of node ${key}`;
  return null;
}
