import { GraphEdge, GraphNode } from '../graph.types';

/**
 * One batch of the sync server's change feed for one graph (POST /graphs/:graphKey/changes,
 * without `saved`). Upserts carry whole documents: a node or edge that
 * is upserted replaces any earlier version; deletions name local keys.
 */
export interface LiveGraphChanges {
  upsertNodes: GraphNode[];
  deleteNodes: string[];
  upsertEdges: GraphEdge[];
  deleteEdges: string[];
}
