import { AppError } from '../errors/app-error';
import { GraphChangeSet } from './graph-change-set';
import { GraphEdge, GraphNode } from './graph.types';
import { setNodeField, unsetNodeField } from './node-field.setter';

/** Read access to the graph's current state, inside the transaction that will apply the plan. */
export interface GraphChangeLookup {
  getNode(nodeKey: string): GraphNode | null;
  getEdge(edgeKey: string): GraphEdge | null;
}

/** What a store must write, in this order: delete edges, delete nodes (with their edges), create nodes, update nodes, create edges. */
export interface GraphChangePlan {
  edgeKeysToDelete: string[];
  /** The store also deletes every edge touching these nodes. */
  nodeKeysToDelete: string[];
  nodesToCreate: GraphNode[];
  nodesToUpdate: Array<{ before: GraphNode; after: GraphNode }>;
  edgesToCreate: GraphEdge[];
}

/**
 * Turns a GraphChangeSet into the exact writes a store performs, or throws before anything is
 * written (the store runs plan + writes in one transaction):
 *  - a node or edge to delete, or a node an instruction targets, that does not exist → not_found naming it;
 *  - a created node or edge key that exists after the deletions (or twice in the set) → conflict;
 *  - an instruction on _key, graphKey or embedding fields, or a node left without a string type/sheet → bad_request;
 *  - a created edge whose source or target does not exist after the change set → bad_request (it would dangle).
 * Instructions apply in order, to existing nodes or to nodes created by the same set. Created
 * nodes and edges get the graph's key as graphKey. Pure: shared by every store.
 */
export class GraphChangePlanner {
  plan(graphKey: string, changes: GraphChangeSet, lookup: GraphChangeLookup): GraphChangePlan {
    const edgeKeysToDelete = unique(changes.edgeKeysToDelete ?? []);
    for (const edgeKey of edgeKeysToDelete) {
      if (!lookup.getEdge(edgeKey))
        throw new AppError('not_found', `Edge "${edgeKey}" does not exist in graph "${graphKey}"`, { edgeKey });
    }
    const nodeKeysToDelete = unique(changes.nodeKeysToDelete ?? []);
    const deletedNodes = new Set(nodeKeysToDelete);
    for (const nodeKey of nodeKeysToDelete) {
      if (!lookup.getNode(nodeKey))
        throw new AppError('not_found', `Node "${nodeKey}" does not exist in graph "${graphKey}"`, { nodeKey });
    }

    const created = new Map<string, GraphNode>();
    for (const node of changes.nodesToCreate ?? []) {
      const key = node._key;
      if (typeof key !== 'string' || key.length === 0)
        throw AppError.badRequest('A created node needs a non-empty _key');
      if (created.has(key) || (!deletedNodes.has(key) && lookup.getNode(key))) {
        throw AppError.conflict(`Node "${key}" already exists in graph "${graphKey}"`, { nodeKey: key });
      }
      created.set(key, { ...node, graphKey });
    }

    const updated = new Map<string, { before: GraphNode; after: GraphNode }>();
    for (const instruction of changes.instructions ?? []) {
      const key = instruction.nodeKey;
      if (instruction.op !== 'set' && instruction.op !== 'unset')
        throw AppError.badRequest(`Unsupported instruction "${String(instruction.op)}" on node "${key}"`);
      const change = (node: GraphNode): GraphNode =>
        instruction.op === 'set'
          ? setNodeField(node, instruction.path, instruction.value)
          : unsetNodeField(node, instruction.path);
      const fresh = created.get(key);
      if (fresh) {
        created.set(key, change(fresh));
        continue;
      }
      const pending = updated.get(key);
      const current = pending?.after ?? (deletedNodes.has(key) ? null : lookup.getNode(key));
      if (!current)
        throw new AppError('not_found', `Node "${key}" does not exist in graph "${graphKey}"`, { nodeKey: key });
      updated.set(key, {
        before: pending?.before ?? current,
        after: change(current),
      });
    }
    for (const node of [...created.values(), ...[...updated.values()].map((entry) => entry.after)])
      assertStorable(node);

    const nodeExistsAfter = (nodeKey: string): boolean =>
      created.has(nodeKey) || (!deletedNodes.has(nodeKey) && lookup.getNode(nodeKey) !== null);
    const explicitlyDeletedEdges = new Set(edgeKeysToDelete);
    const createdEdges = new Map<string, GraphEdge>();
    for (const edge of changes.edgesToCreate ?? []) {
      const key = edge._key;
      if (typeof key !== 'string' || key.length === 0)
        throw AppError.badRequest('A created edge needs a non-empty _key');
      if (typeof edge.sheet !== 'string' || edge.sheet.length === 0)
        throw AppError.badRequest(`Edge "${key}" needs a non-empty string sheet`, { edgeKey: key });
      const existing = explicitlyDeletedEdges.has(key) ? null : lookup.getEdge(key);
      const survives = existing !== null && !deletedNodes.has(existing.source) && !deletedNodes.has(existing.target);
      if (createdEdges.has(key) || survives)
        throw AppError.conflict(`Edge "${key}" already exists in graph "${graphKey}"`, { edgeKey: key });
      for (const end of ['source', 'target'] as const) {
        if (!nodeExistsAfter(edge[end])) {
          throw AppError.badRequest(`Edge "${key}" would dangle: its ${end} node "${edge[end]}" does not exist`, {
            edgeKey: key,
            [end]: edge[end],
          });
        }
      }
      createdEdges.set(key, { ...edge, graphKey });
    }

    return {
      edgeKeysToDelete,
      nodeKeysToDelete,
      nodesToCreate: [...created.values()],
      nodesToUpdate: [...updated.values()],
      edgesToCreate: [...createdEdges.values()],
    };
  }
}

function unique(keys: readonly string[]): string[] {
  return [...new Set(keys)];
}

function assertStorable(node: GraphNode): void {
  for (const field of ['type', 'sheet'] as const) {
    if (typeof node[field] !== 'string' || node[field].length === 0) {
      throw AppError.badRequest(`Node "${node._key}" needs a non-empty string ${field}`, { nodeKey: node._key, field });
    }
  }
}
