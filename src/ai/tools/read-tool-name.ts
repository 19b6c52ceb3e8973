/** The read tools of PROTOCOL.md §5 (seed 000 readTools): executed at once, their result goes back to the model. */
export const READ_TOOL_NAMES = [
  'read_graph_overview',
  'search_nodes',
  'explore_neighborhood',
  'read_node_detail',
  'read_node_config',
  'list_available_node_types',
  'list_node_edges',
] as const;

export type ReadToolName = (typeof READ_TOOL_NAMES)[number];

const READ_TOOLS: ReadonlySet<string> = new Set(READ_TOOL_NAMES);

export function isReadTool(name: string): name is ReadToolName {
  return READ_TOOLS.has(name);
}
