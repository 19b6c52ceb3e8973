/** The write tools: never executed by the loop, each valid call interrupts for approval. */
export const WRITE_TOOL_NAMES = [
  'propose_create_node',
  'propose_create_edge',
  'propose_delete_node',
  'propose_update_node',
  'propose_move_node',
  'propose_delete_edge',
  'propose_batch',
] as const;

export type WriteToolName = (typeof WRITE_TOOL_NAMES)[number];

const WRITE_TOOLS: ReadonlySet<string> = new Set(WRITE_TOOL_NAMES);

/** True for the propose_* tools (also when the model calls one it was not offered). */
export function isWriteTool(name: string): name is WriteToolName {
  return WRITE_TOOLS.has(name);
}
