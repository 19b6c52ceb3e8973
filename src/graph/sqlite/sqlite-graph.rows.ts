import { GraphEdge, GraphNode } from '../graph.types';
import { encodeEdgeDocument, encodeNodeDocument, StoredVector } from './sqlite-graph.codec';
import { SqliteGraphStatements } from './sqlite-graph.statements';

/** Inserts a node row (its document without embedding fields, and its vector when it has one), inside the caller's transaction. */
export function insertNodeRow(
  statements: SqliteGraphStatements,
  graphId: number,
  node: GraphNode,
  vector: StoredVector | null,
): void {
  statements.insertNode.run(
    graphId,
    node._key,
    node.type,
    node.sheet,
    encodeNodeDocument(node),
    vector?.blob ?? null,
    vector?.model ?? null,
    vector?.hash ?? null,
  );
}

/** Inserts an edge row, inside the caller's transaction. */
export function insertEdgeRow(statements: SqliteGraphStatements, graphId: number, edge: GraphEdge): void {
  statements.insertEdge.run(graphId, edge._key, edge.sheet, edge.source, edge.target, encodeEdgeDocument(edge));
}
