import { ToolRegistry } from '../tool.registry';
import { exploreNeighborhoodTool } from './explore-neighborhood.read-tool';
import { listAvailableNodeTypesTool } from './list-available-node-types.read-tool';
import { listNodeEdgesTool } from './list-node-edges.read-tool';
import { readGraphOverviewTool } from './read-graph-overview.read-tool';
import { readNodeConfigTool } from './read-node-config.read-tool';
import { readNodeDetailTool } from './read-node-detail.read-tool';
import { searchNodesTool } from './search-nodes.read-tool';

/** The 7 read tools of, in that order: executed at once, their result goes back to the model. */
const READ_TOOLS = [
  readGraphOverviewTool,
  searchNodesTool,
  exploreNeighborhoodTool,
  readNodeDetailTool,
  readNodeConfigTool,
  listAvailableNodeTypesTool,
  listNodeEdgesTool,
] as const;

export type ReadToolName = (typeof READ_TOOLS)[number]['name'];

export const READ_TOOL_REGISTRY = new ToolRegistry<(typeof READ_TOOLS)[number]>(READ_TOOLS);
