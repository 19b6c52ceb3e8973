import type { LlmToolDefinition } from '../../conversation/llm-message';
import type { RunAuthority } from '../authority/run-authority';
import type { JsonSchema } from '../tools/json-schema.validator';
import { READ_TOOL_REGISTRY } from '../tools/read/read-tool.registry';
import { offeredWriteTools, WriteToolNotes } from '../tools/write-tool.offer';

/** The graph every MCP tool acts on: an argument of each (an agent's run has one graph, an MCP client has them all). */
export const GRAPH_KEY_ARGUMENT = 'graphKey';

export const SEARCH_GRAPH_TOOL = 'search_graph';

/** A tool as MCP's `tools/list` answers it. */
export interface McpToolDefinition {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties?: Record<string, object>; required?: string[]; [key: string]: unknown };
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** `search_graph`'s arguments: the query of POST /api/rag/context and its options, flattened. */
export const SEARCH_GRAPH_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: [GRAPH_KEY_ARGUMENT, 'query'],
  properties: {
    [GRAPH_KEY_ARGUMENT]: { type: 'string', minLength: 1, description: 'The graph to search (see resources).' },
    query: { type: 'string', minLength: 1, description: 'What you are looking for, in words.' },
    maxNodes: { type: 'integer', minimum: 1, maximum: 100, description: 'Most nodes returned (default 20).' },
    maxDepth: {
      type: 'integer',
      minimum: 1,
      maximum: 3,
      description: 'Neighbourhood hops around the hits (default 2).',
    },
  },
};

const SEARCH_GRAPH: McpToolDefinition = {
  name: SEARCH_GRAPH_TOOL,
  description:
    'Retrieve the part of a workflow graph relevant to a question: the best matching nodes (hybrid lexical and semantic ' +
    'search), their neighbourhood, the edges between them and the node types used, as compact TOON tables. Start here, ' +
    'then read details with the other tools.',
  inputSchema: SEARCH_GRAPH_SCHEMA as McpToolDefinition['inputSchema'],
  annotations: { readOnlyHint: true, openWorldHint: false },
};

/** What becomes of a proposal, told to a caller whose conversation does not pause and who has no ask_user. */
const MCP_NOTES: WriteToolNotes = {
  levels: {
    autonomous:
      'This workspace applies it at once: the result says "applied" (with the operation id), "stale" (the graph changed ' +
      'since you read it: read again) or "failed".',
    validation_required:
      'It is not applied now: it waits for an editor or admin in the approval queue, and the result says ' +
      '"pending_approval" with the thread id to follow it.',
    ask_first:
      'This workspace asks the user to confirm first: your client shows them the change, and it is applied after a yes ' +
      '("applied") or not at all ("declined"). A client that cannot ask gets a refusal.',
  },
  everyKindApproved:
    'It is not applied now: it waits for an editor or admin in the approval queue, and the result says ' +
    '"pending_approval" with the thread id to follow it.',
  mixedBatch:
    'A batch is handled like the strictest of its actions: applied at once only when each of them may be, otherwise it ' +
    "waits in the approval queue, needs the user's yes first, or is refused, as their tools say.",
};

/**
 * The tools an MCP client is offered: the seven read tools and `search_graph` to everyone, and the `propose_*` tools
 * whose kinds the caller's action policy does not forbid (none to a viewer), each described with what becomes of its
 * proposals. Every tool takes the graph as `graphKey`.
 */
export function mcpTools(authority: RunAuthority): McpToolDefinition[] {
  return [
    ...READ_TOOL_REGISTRY.definitions.map((definition) => withGraphKey(definition, { readOnlyHint: true })),
    SEARCH_GRAPH,
    ...offeredWriteTools(authority, MCP_NOTES).map((definition) =>
      withGraphKey(definition, { readOnlyHint: false, destructiveHint: definition.function.name.includes('delete') }),
    ),
  ];
}

function withGraphKey(definition: LlmToolDefinition, hints: McpToolDefinition['annotations']): McpToolDefinition {
  const { name, description, parameters } = definition.function;
  const schema = parameters as JsonSchema;
  return {
    name,
    description,
    inputSchema: {
      ...schema,
      type: 'object',
      properties: {
        [GRAPH_KEY_ARGUMENT]: { type: 'string', minLength: 1, description: 'The graph (see resources).' },
        ...(schema.properties ?? {}),
      },
      required: [GRAPH_KEY_ARGUMENT, ...(schema.required ?? [])],
    },
    annotations: { ...hints, openWorldHint: false },
  };
}
