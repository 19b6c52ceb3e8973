/**
 * What a graph always sends to the model (docs/protocol.md §9.6): nodes, and node types, whose data is in the stable
 * level 2 of every prompt of that graph.
 */
export interface AlwaysSendList {
  /** Node keys of the graph: each node's whole configuration. */
  nodeKeys: string[];
  /** Node types: the type's configuration and the data of each of the graph's nodes of that type. */
  nodeTypes: string[];
  /** When it was last stored; absent when the graph never had a list. */
  updatedTime?: number;
}

/** A graph that never stored a list sends nothing extra. */
export const EMPTY_ALWAYS_SEND: Readonly<AlwaysSendList> = Object.freeze({ nodeKeys: [], nodeTypes: [] });
