import { LlmToolDefinition } from '../../conversation/llm-message';
import { JsonSchema } from './json-schema.validator';
import { ReadToolName } from './read-tool-name';

const nodeKey: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description: 'Local key of a node of this graph, exactly as written in the context or a tool result (e.g. "fetch-api").',
};

const direction: JsonSchema = {
  type: 'string',
  enum: ['in', 'out', 'any'],
  description: '"in": edges arriving at the node (what feeds it); "out": edges leaving it (what it feeds); "any": both. Default "any".',
};

/** Argument schemas of the read tools: what the model is shown and what the executor enforces. */
export const READ_TOOL_SCHEMAS: Readonly<Record<ReadToolName, JsonSchema>> = Object.freeze({
  read_graph_overview: {
    type: 'object',
    additionalProperties: false,
    properties: {
      graphKey: {
        type: 'string',
        description: 'Key of the current graph (optional: the tool always reads the graph of this conversation).',
      },
    },
  },
  search_nodes: {
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
      sheetId: { type: 'string', minLength: 1, description: 'Only nodes of this sheet (its id, e.g. "0", or its name).' },
      maxResults: { type: 'integer', minimum: 1, maximum: 50, description: 'How many nodes to return, best first. Default 10.' },
    },
  },
  explore_neighborhood: {
    type: 'object',
    additionalProperties: false,
    required: ['nodeKey'],
    properties: {
      nodeKey,
      maxDepth: { type: 'integer', minimum: 1, maximum: 3, description: 'How many hops to follow (1-3). Default 2.' },
      direction,
    },
  },
  read_node_detail: {
    type: 'object',
    additionalProperties: false,
    required: ['nodeKey'],
    properties: { nodeKey },
  },
  read_node_config: {
    type: 'object',
    additionalProperties: false,
    required: ['typeKey'],
    properties: {
      typeKey: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description: 'A node type, as in a node\'s "type" (e.g. "api-call", or a built-in: starter, return, html, entryType).',
      },
    },
  },
  list_available_node_types: { type: 'object', additionalProperties: false, properties: {} },
  list_node_edges: {
    type: 'object',
    additionalProperties: false,
    required: ['nodeKey'],
    properties: { nodeKey, direction },
  },
});

const DESCRIPTIONS: Readonly<Record<ReadToolName, string>> = Object.freeze({
  read_graph_overview:
    'Overview of the current graph: name, description, sheets with their node and edge counts, and how many nodes of each type. Start here for questions about the whole workflow.',
  search_nodes:
    'Full-text search over the nodes of the current graph (keys, types, code and data), best matches first. Use it to find node keys before reading their detail.',
  explore_neighborhood:
    'The nodes around a node, up to maxDepth hops (1-3), following edges in the given direction, with the edges between them and each node\'s distance. Use it to follow the data flow.',
  read_node_detail:
    'Everything about one node: type, sheet, position, its code (process), its data, its handles (side:type(accept)#id) and its incoming and outgoing edges.',
  read_node_config:
    'Definition of a node type: display name, description, category, handles and default code for a custom type; the role of a built-in type.',
  list_available_node_types:
    'Every node type usable in this workspace: the 4 built-in types and the custom types with their display names.',
  list_node_edges:
    'The edges of one node (incoming, outgoing or both), each written "node:handle" to "node:handle" with its label.',
});

/** The 7 read tools in OpenAI function-calling form, in PROTOCOL.md §5 order. */
export const READ_TOOL_DEFINITIONS: readonly LlmToolDefinition[] = Object.freeze(
  (Object.keys(READ_TOOL_SCHEMAS) as ReadToolName[]).map((name) => ({
    type: 'function' as const,
    function: { name, description: DESCRIPTIONS[name], parameters: READ_TOOL_SCHEMAS[name] },
  })),
);
