import { GraphChangeSet } from './graph-change-set';
import { GraphDataSource } from './graph-data-source';
import { GraphEdge, GraphNode } from './graph.types';

/**
 * Write access to the graphs of one workspace. Every method throws AppError('not_found') when the
 * graph (or the node/edge it changes) does not exist in this workspace, and AppError('conflict')
 * when a created key already exists. Deleting a node deletes its edges.
 */
export interface MutableGraphDataSource extends GraphDataSource {
  createNode(graphKey: string, node: GraphNode): Promise<void>;
  /** Replaces the node's document (its key and graphKey are kept). */
  updateNode(graphKey: string, node: GraphNode): Promise<void>;
  deleteNode(graphKey: string, nodeKey: string): Promise<void>;
  createEdge(graphKey: string, edge: GraphEdge): Promise<void>;
  updateEdge(graphKey: string, edge: GraphEdge): Promise<void>;
  deleteEdge(graphKey: string, edgeKey: string): Promise<void>;
  /**
   * Applies a change set atomically. Fails (and changes nothing) with not_found naming the missing
   * node/edge, or conflict naming the duplicated key, or bad_request when an edge would dangle.
   */
  applyChanges(graphKey: string, changes: GraphChangeSet): Promise<void>;
}
