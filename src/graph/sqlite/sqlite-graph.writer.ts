import type { Database } from 'better-sqlite3';
import { AppError } from '../../errors/app-error';
import { GraphChangeSet } from '../graph-change-set';
import { GraphChangeLookup, GraphChangePlan, GraphChangePlanner } from '../graph-change.planner';
import { NodeEmbeddingWrite } from '../graph-store';
import { GraphEdge, GraphNode } from '../graph.types';
import { hasNodeContentChanged } from '../node-content';
import {
  decodeDocument,
  encodeEdgeDocument,
  encodeNodeDocument,
  encodeVector,
  vectorCarriedBy,
} from './sqlite-graph.codec';
import { insertEdgeRow, insertNodeRow } from './sqlite-graph.rows';
import { GraphRef, SqliteGraphStatements } from './sqlite-graph.statements';
import { inImmediateTransaction } from './sqlite-immediate.transaction';

/**
 * One graph inside a SqliteGraphWriter.transaction: its stored nodes and edges as the transaction sees them (its own
 * writes included), and change sets applied in order, each planned against the state the previous one left.
 */
export interface SqliteGraphTransaction {
  /** The graph's revision when the transaction began (before its own writes). */
  readonly revision: number;
  node(nodeKey: string): GraphNode | null;
  edge(edgeKey: string): GraphEdge | null;
  /** The edges whose source or target is the node. */
  edgesOfNode(nodeKey: string): GraphEdge[];
  /** Plans and writes a change set (GraphChangePlanner's checks first: nothing of it is written when they fail). */
  apply(changes: GraphChangeSet): GraphChangePlan;
}

/** Revisions (and embedding revisions) whose node changes are kept per graph: a process further behind rebuilds its indexes. */
export const NODE_CHANGES_KEPT = 256;
/** Beyond this many nodes, one write is not worth updating an index node by node: it records nothing. */
export const NODE_CHANGES_MAX_KEYS = 2_000;

/**
 * Every write of the embedded graph store but imports (SqliteGraphImporter). Each public method is ONE `BEGIN IMMEDIATE` transaction
 * (the write lock is taken before anything is read, so another process cannot slip a write between
 * our checks and our writes) that also bumps the graph's revision: all or nothing.
 */
export class SqliteGraphWriter {
  constructor(
    private readonly db: Database,
    private readonly statements: SqliteGraphStatements,
    private readonly planner: GraphChangePlanner = new GraphChangePlanner(),
  ) {}

  applyChanges(workspace: string, graphKey: string, changes: GraphChangeSet): void {
    this.inTransaction(() => {
      const ref = this.requireGraph(workspace, graphKey);
      const plan = this.planner.plan(graphKey, changes, this.lookup(ref.id));
      this.execute(ref.id, plan);
      this.bumpRevision(ref, [
        ...plan.nodeKeysToDelete,
        ...plan.nodesToCreate.map((node) => node._key),
        ...plan.nodesToUpdate.map(({ after }) => after._key),
      ]);
    });
  }

  /**
   * `work` on one graph in ONE IMMEDIATE transaction, for a caller that keeps its own record of what it writes beside
   * the graph (the change log: src/changes) on the same connection: a throw rolls everything back, the caller's rows
   * included. The revision moves once, at the end, when anything was applied.
   */
  transaction<T>(workspace: string, graphKey: string, work: (graph: SqliteGraphTransaction) => T): T {
    return this.inTransaction(() => {
      const ref = this.requireGraph(workspace, graphKey);
      const lookup = this.lookup(ref.id);
      const touched: string[] = [];
      let applied = false;
      const result = work({
        revision: ref.revision,
        node: lookup.getNode,
        edge: lookup.getEdge,
        edgesOfNode: (nodeKey) =>
          this.statements.edgesTouching
            .all(workspace, graphKey, nodeKey, workspace, graphKey, nodeKey)
            .map((row) => decodeDocument<GraphEdge>(row.document)),
        apply: (changes) => {
          const plan = this.planner.plan(graphKey, changes, lookup);
          this.execute(ref.id, plan);
          applied = true;
          touched.push(
            ...plan.nodeKeysToDelete,
            ...plan.nodesToCreate.map((node) => node._key),
            ...plan.nodesToUpdate.map(({ after }) => after._key),
          );
          return plan;
        },
      });
      if (applied) this.bumpRevision(ref, touched);
      return result;
    });
  }

  /** Replaces a node's document; its key and graphKey are kept. A content change drops its stale vector. */
  updateNode(workspace: string, graphKey: string, node: GraphNode): void {
    this.inTransaction(() => {
      const ref = this.requireGraph(workspace, graphKey);
      const before = this.lookup(ref.id).getNode(node._key);
      if (!before)
        throw new AppError('not_found', `Node "${node._key}" does not exist in graph "${graphKey}"`, {
          nodeKey: node._key,
        });
      const after: GraphNode = { ...node, _key: before._key, graphKey };
      for (const field of ['type', 'sheet'] as const) {
        if (typeof after[field] !== 'string' || after[field].length === 0) {
          throw AppError.badRequest(`Node "${after._key}" needs a non-empty string ${field}`, {
            nodeKey: after._key,
            field,
          });
        }
      }
      this.writeNodeUpdate(ref.id, before, after);
      this.bumpRevision(ref, [after._key]);
    });
  }

  /** Replaces an edge's document; its key and graphKey are kept; its ends must exist. */
  updateEdge(workspace: string, graphKey: string, edge: GraphEdge): void {
    this.inTransaction(() => {
      const ref = this.requireGraph(workspace, graphKey);
      const lookup = this.lookup(ref.id);
      if (!lookup.getEdge(edge._key))
        throw new AppError('not_found', `Edge "${edge._key}" does not exist in graph "${graphKey}"`, {
          edgeKey: edge._key,
        });
      for (const end of ['source', 'target'] as const) {
        if (typeof edge[end] !== 'string' || !lookup.getNode(edge[end])) {
          throw AppError.badRequest(`Edge "${edge._key}" would dangle: its ${end} node "${edge[end]}" does not exist`, {
            edgeKey: edge._key,
          });
        }
      }
      if (typeof edge.sheet !== 'string' || edge.sheet.length === 0)
        throw AppError.badRequest(`Edge "${edge._key}" needs a non-empty string sheet`);
      const stored: GraphEdge = { ...edge, graphKey };
      this.statements.updateEdge.run(
        stored.sheet,
        stored.source,
        stored.target,
        encodeEdgeDocument(stored),
        ref.id,
        stored._key,
      );
      this.bumpRevision(ref, []);
    });
  }

  /**
   * Stores vectors; nodes deleted since they were embedded are skipped. Moves the graph to its next
   * embedding revision and records which nodes' vectors it set (graph-embedding-changes.sqlite-migration.ts),
   * unless more than NODE_CHANGES_MAX_KEYS: readers rebuild their vector indexes anyway.
   */
  saveEmbeddings(workspace: string, graphKey: string, entries: readonly NodeEmbeddingWrite[]): void {
    this.inTransaction(() => {
      const statements = this.statements;
      const ref = this.requireGraph(workspace, graphKey);
      const keys = new Set<string>();
      for (const entry of entries) {
        if (
          statements.setNodeVector.run(encodeVector(entry.vector), entry.model, entry.hash, ref.id, entry.nodeKey)
            .changes > 0
        )
          keys.add(entry.nodeKey);
      }
      if (keys.size === 0) return;
      statements.bumpEmbeddingRevision.run(ref.id);
      // The write lock was taken before `ref` was read: the embedding revision is exactly the next one.
      const embeddingRevision = ref.embeddingRevision + 1;
      if (keys.size <= NODE_CHANGES_MAX_KEYS)
        statements.recordEmbeddingChanges.run(ref.id, embeddingRevision, JSON.stringify([...keys]));
      statements.pruneEmbeddingChanges.run(ref.id, embeddingRevision - NODE_CHANGES_KEPT);
    });
  }

  private execute(graphId: number, plan: GraphChangePlan): void {
    const statements = this.statements;
    for (const edgeKey of plan.edgeKeysToDelete) statements.deleteEdge.run(graphId, edgeKey);
    for (const nodeKey of plan.nodeKeysToDelete) {
      statements.deleteEdgesFrom.run(graphId, nodeKey);
      statements.deleteEdgesTo.run(graphId, nodeKey);
      statements.deleteNode.run(graphId, nodeKey);
    }
    for (const node of plan.nodesToCreate) insertNodeRow(this.statements, graphId, node, vectorCarriedBy(node));
    for (const { before, after } of plan.nodesToUpdate) this.writeNodeUpdate(graphId, before, after);
    for (const edge of plan.edgesToCreate) insertEdgeRow(this.statements, graphId, edge);
  }

  /**
   * Moves the graph to its next revision and records which nodes that revision touched, so every
   * process updates its indexes for just those (graph-node-changes.sqlite-migration.ts). A
   * write touching more than NODE_CHANGES_MAX_KEYS nodes records nothing: readers rebuild anyway.
   */
  private bumpRevision(ref: GraphRef, nodeKeys: string[]): void {
    const statements = this.statements;
    statements.bumpRevision.run(Date.now(), ref.id);
    // The write lock was taken before `ref` was read: the revision is exactly the next one.
    const revision = ref.revision + 1;
    const keys = [...new Set(nodeKeys)];
    if (keys.length <= NODE_CHANGES_MAX_KEYS) statements.recordNodeChanges.run(ref.id, revision, JSON.stringify(keys));
    statements.pruneNodeChanges.run(ref.id, revision - NODE_CHANGES_KEPT);
  }

  private writeNodeUpdate(graphId: number, before: GraphNode, after: GraphNode): void {
    this.statements.updateNodeDocument.run(after.type, after.sheet, encodeNodeDocument(after), graphId, after._key);
    // A moved or resized node keeps its vector; a changed one must be re-embedded, not searched with a stale vector.
    if (hasNodeContentChanged(before, after)) this.statements.setNodeVector.run(null, null, null, graphId, after._key);
  }

  private requireGraph(workspace: string, graphKey: string): GraphRef {
    const ref = this.statements.graphRef.get(workspace, graphKey);
    if (!ref) throw new AppError('not_found', `Graph "${graphKey}" does not exist`, { graphKey });
    return ref;
  }

  private lookup(graphId: number): GraphChangeLookup {
    const statements = this.statements;
    return {
      getNode: (nodeKey) => {
        const row = statements.nodeDocumentById.get(graphId, nodeKey);
        return row ? decodeDocument<GraphNode>(row.document) : null;
      },
      getEdge: (edgeKey) => {
        const row = statements.edgeDocumentById.get(graphId, edgeKey);
        return row ? decodeDocument<GraphEdge>(row.document) : null;
      },
    };
  }

  private inTransaction<T>(work: () => T): T {
    return inImmediateTransaction(this.db, work);
  }
}
