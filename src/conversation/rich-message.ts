/**
 * A rich message (docs/protocol.md §9.6): what a user composes, text and blocks that attach data of the graph to the
 * question. The model reads its linear text (each block replaced by a marker naming it) and, at level 4 of the
 * prompt, the data each block loaded.
 */

/** What a block asks for: point at parts of the graph, use a node type, create one, or change a node's configuration. */
export type BlockKind = 'pointer' | 'use' | 'create' | 'modify_config';

/** Nodes (a canvas selection is a list of nodes), edges, or a whole sheet (its id). At least one of them. */
export interface PointerBlockConfig {
  nodeKeys?: string[];
  edgeKeys?: string[];
  sheet?: string;
}

/** A node type, by its key (a workspace's node config or a built-in type). */
export interface NodeTypeBlockConfig {
  nodeType: string;
}

/** One node of the graph. */
export interface NodeBlockConfig {
  nodeKey: string;
}

export interface TextSegment {
  type: 'text';
  text: string;
}

/** A block: its kind, what it names, and the readable preview the user saw on its chip (user text). */
export type BlockSegment =
  | { type: 'block'; block: 'pointer'; config: PointerBlockConfig; preview: string }
  | { type: 'block'; block: 'use' | 'create'; config: NodeTypeBlockConfig; preview: string }
  | { type: 'block'; block: 'modify_config'; config: NodeBlockConfig; preview: string };

export type MessageSegment = TextSegment | BlockSegment;
