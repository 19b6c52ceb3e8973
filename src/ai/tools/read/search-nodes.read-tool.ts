import { Graph } from '../../../graph/graph.types';
import { truncate } from '../../../rag/text-truncation';
import { defineReadTool } from './read-tool';
import { dataPreview, indexConfigsByType, processOf, sheetName, typeName } from './read-tool.views';
import type { ToolResultTexts } from '../tool-result.texts';
import { ToolInputError } from './tool-input.error';

interface SearchNodesArguments {
  query: string;
  sheetId?: string;
  maxResults?: number;
}

export const searchNodesTool = defineReadTool<SearchNodesArguments>()({
  name: 'search_nodes',
  description:
    'Full-text search over the nodes of the current graph (keys, types, code and data), best matches first. Use it to find node keys before reading their detail.',
  parameters: {
    type: 'object',
    additionalProperties: false,
    required: ['query'],
    properties: {
      query: {
        type: 'string',
        minLength: 1,
        maxLength: 500,
        description: 'Words to look for in node keys, types, code (process) and data, e.g. "fetch players api".',
      },
      sheetId: {
        type: 'string',
        minLength: 1,
        description: 'Only nodes of this sheet (its id, e.g. "0", or its name).',
      },
      maxResults: {
        type: 'integer',
        minimum: 1,
        maximum: 50,
        description: 'How many nodes to return, best first. Default 10.',
      },
    },
  },
  async execute({ query, sheetId: sheet, maxResults = 10 }, context) {
    const graph = await context.graph();
    const sheetId = sheet === undefined ? undefined : resolveSheet(graph, sheet, context.texts);
    // The store ranks the whole graph; a sheet filter needs a deeper list to keep enough hits.
    const depth = sheetId === undefined ? maxResults : Math.max(maxResults * 5, 50);
    const [hits, configs] = await Promise.all([
      context.dataSource.searchNodes(context.graphKey, query, depth),
      context.dataSource.getNodeConfigs(),
    ]);
    const configsByType = indexConfigsByType(configs);
    const results = hits
      .filter((hit) => sheetId === undefined || hit.node.sheet === sheetId)
      .slice(0, maxResults)
      .map((hit) => ({
        key: hit.node._key,
        type: hit.node.type,
        ...typeName(hit.node.type, configsByType),
        sheet: sheetName(graph, hit.node.sheet),
        score: Math.round(hit.score * 1000) / 1000,
        process: truncate(processOf(hit.node), context.limits.previewChars),
        data: dataPreview(hit.node.data, context.limits.previewChars),
      }));
    return {
      query,
      ...(sheetId !== undefined ? { sheetId } : {}),
      count: results.length,
      results,
      ...(results.length === 0 ? { hint: context.texts.noSearchMatch } : {}),
    };
  },
});

/** A sheet given by its id or its name, as its id. */
function resolveSheet(graph: Graph, sheet: string, texts: ToolResultTexts): string {
  const sheets = graph.sheetsList ?? {};
  if (Object.prototype.hasOwnProperty.call(sheets, sheet)) return sheet;
  const byName = Object.entries(sheets).find(([, name]) => name === sheet);
  if (byName) return byName[0];
  throw new ToolInputError(texts.unknownSheet(sheet), {
    sheets: Object.entries(sheets).map(([id, name]) => ({ id, name })),
  });
}
