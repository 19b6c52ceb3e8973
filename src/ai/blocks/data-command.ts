/**
 * One piece of data a block asks for (the seed's DataCommand): what it is and the key it names. Two commands with the
 * same kind and key load the same data, whichever block asked for them: that is what de-duplication compares.
 *
 *   mention        a node pinned in the retrieved context, ahead of search hits (pointer nodes, edge ends, `mentions`)
 *   node_config    a node's whole configuration (type, sheet, handles, data, process)
 *   edge           an edge, its two ends and their handles
 *   sheet          a sheet's nodes and edges
 *   type_config    a node type's configuration (the workspace's node config, or a built-in type's description)
 *   type_schema    the schema of a node type's data (declared, or inferred from the graph's nodes)
 *   type_sample    the data of a few of the graph's nodes of a type, truncated like retrieval
 *   type_stats     how many of the graph's nodes use a type, and on which sheets
 *   type_defaults  what a new node of a type starts from (handles, size, process, data)
 */
export type DataCommandKind =
  | 'mention'
  | 'node_config'
  | 'edge'
  | 'sheet'
  | 'type_config'
  | 'type_schema'
  | 'type_sample'
  | 'type_stats'
  | 'type_defaults';

export interface DataCommand {
  kind: DataCommandKind;
  key: string;
}

/** The command's identity: equal for commands that load the same data. */
export function commandId(command: DataCommand): string {
  return `${command.kind}\u0000${command.key}`;
}
