import { GraphEdge, GraphNode } from './graph.types';

/**
 * Sets one field of a node (`set`), or removes it (`unset`: the field the node had not before a change, put back
 * by that change's inverse); `path` is split on dots (["data", "a", "b"] for data.a.b).
 */
export interface NodeFieldInstruction {
  nodeKey: string;
  op: 'set' | 'unset';
  path: string[];
  /** `set`: the new value; absent for `unset`. */
  value?: unknown;
  /** Hints for the Nodius editor: animate a position change, re-render a node's HTML. */
  animatePos?: boolean;
  triggerHtmlRender?: boolean;
}

/**
 * A set of mutations applied to one graph in one transaction: all or nothing.
 * Produced by the ActionConverter from an approved proposal.
 */
export interface GraphChangeSet {
  instructions: NodeFieldInstruction[];
  nodesToCreate: GraphNode[];
  edgesToCreate: GraphEdge[];
  nodeKeysToDelete: string[];
  edgeKeysToDelete: string[];
}

/** A change set holding only the given parts (the others empty). */
export function graphChangeSet(parts: Partial<GraphChangeSet> = {}): GraphChangeSet {
  return {
    instructions: [],
    nodesToCreate: [],
    edgesToCreate: [],
    nodeKeysToDelete: [],
    edgeKeysToDelete: [],
    ...parts,
  };
}
