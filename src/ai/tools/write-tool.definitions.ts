import { LlmToolDefinition } from '../../conversation/llm-message';
import { ActionKind } from '../../policy/action-policy';
import { JsonSchema } from './json-schema.validator';
import { RegisteredTool, ToolRegistry } from './tool.registry';
import { WriteToolName } from './write-tool-name';

/** JSON Schema of a tool's arguments (the strict subset JsonSchemaValidator checks). */
export type ToolArgumentSchema = JsonSchema;

const reason: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 2000,
  description:
    'Why this change helps the user, in one or two sentences. Shown to the human who approves or rejects it.',
};

const localKey = (what: string): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description: `Local key of the ${what} (as shown in the context or returned by the read tools).`,
});

const sheet: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 100,
  description: 'Sheet id (a key of the graph\'s sheets list, e.g. "0"), not the sheet name.',
};

const coordinate = (axis: string): JsonSchema => ({
  type: 'number',
  description: `${axis} position on the sheet, in canvas pixels.`,
});

const handlePoint: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'accept'],
  properties: {
    id: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'Handle id, unique within the node (e.g. "R-0").',
    },
    type: { type: 'string', enum: ['in', 'out'], description: '"in" receives data, "out" sends it.' },
    accept: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'Accepted data type, e.g. "any", "object", "string".',
    },
    offset: { type: 'number', description: 'Offset along the side, in pixels (optional).' },
    display: { type: 'string', maxLength: 200, description: 'Label shown next to the handle (optional).' },
  },
};

const handleGroup: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['position', 'point'],
  properties: {
    position: {
      type: 'string',
      enum: ['separate', 'fix'],
      description: '"separate" spreads the points along the side, "fix" stacks them.',
    },
    point: { type: 'array', minItems: 1, maxItems: 32, items: handlePoint, description: 'The handles on this side.' },
  },
};

const handles: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description:
    "Handles by side: T (top), D (down), R (right), L (left), 0 (center). Omit to use the node type's default handles.",
  properties: { T: handleGroup, D: handleGroup, R: handleGroup, L: handleGroup, '0': handleGroup },
};

const createNodeProperties: Record<string, JsonSchema> = {
  nodeKey: {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]+$',
    description:
      'Optional local key for the new node (letters, digits, "-" and "_"); must not exist yet. Give one when other actions of the same batch connect edges to this node; generated otherwise.',
  },
  typeKey: {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    description:
      'Node type: a built-in (starter, return, html, entryType) or a custom type key (see list_available_node_types).',
  },
  sheet,
  posX: coordinate('Horizontal'),
  posY: coordinate('Vertical'),
  process: { type: 'string', maxLength: 100000, description: 'JavaScript code the node runs (optional).' },
  handles,
  data: { description: 'Initial data of the node (any JSON value, optional).' },
};

const createEdgeProperties: Record<string, JsonSchema> = {
  edgeKey: {
    type: 'string',
    minLength: 1,
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]+$',
    description: 'Optional local key for the new edge; generated when absent.',
  },
  sourceKey: localKey('source node'),
  sourceHandle: {
    type: 'string',
    minLength: 1,
    maxLength: 100,
    description: 'Id of an "out" handle of the source node (e.g. "R-0").',
  },
  targetKey: localKey('target node'),
  targetHandle: {
    type: 'string',
    minLength: 1,
    maxLength: 100,
    description: 'Id of an "in" handle of the target node (e.g. "L-0").',
  },
  sheet,
  label: { type: 'string', maxLength: 200, description: 'Label shown on the edge (optional), e.g. "success".' },
};

const updateNodeProperties: Record<string, JsonSchema> = {
  nodeKey: localKey('node to change'),
  changes: {
    type: 'object',
    description:
      'Field path → new value. Paths: "process" (string), "data" or nested "data.a.b" (any JSON), "posX"/"posY" (number), "size.width"/"size.height" (number), "handles", "type". Example: { "data.minGames": 5, "process": "next(0, incoming[0].data);" }.',
  },
};

const moveNodeProperties: Record<string, JsonSchema> = {
  nodeKey: localKey('node to move'),
  posX: coordinate('New horizontal'),
  posY: coordinate('New vertical'),
};

/** Per-type arguments (without `reason`): shared by the single tools and by batch items. */
export const ACTION_ARGUMENT_SCHEMAS: Record<
  'create_node' | 'create_edge' | 'delete_node' | 'update_node' | 'move_node' | 'delete_edge',
  { properties: Record<string, JsonSchema>; required: readonly string[] }
> = {
  create_node: { properties: createNodeProperties, required: ['typeKey', 'sheet', 'posX', 'posY'] },
  create_edge: {
    properties: createEdgeProperties,
    required: ['sourceKey', 'sourceHandle', 'targetKey', 'targetHandle', 'sheet'],
  },
  delete_node: { properties: { nodeKey: localKey('node to delete') }, required: ['nodeKey'] },
  update_node: { properties: updateNodeProperties, required: ['nodeKey', 'changes'] },
  move_node: { properties: moveNodeProperties, required: ['nodeKey', 'posX', 'posY'] },
  delete_edge: { properties: { edgeKey: localKey('edge to delete') }, required: ['edgeKey'] },
};

export type SingleActionType = keyof typeof ACTION_ARGUMENT_SCHEMAS;

export const SINGLE_ACTION_TYPES = Object.keys(ACTION_ARGUMENT_SCHEMAS) as SingleActionType[];

/** Strict object schema of one action type; with `withReason`, `reason` is required (single tools). */
export function actionSchema(type: SingleActionType, withReason: boolean): ToolArgumentSchema {
  const { properties, required } = ACTION_ARGUMENT_SCHEMAS[type];
  return {
    type: 'object',
    additionalProperties: false,
    properties: { ...properties, reason },
    required: withReason ? [...required, 'reason'] : [...required],
  };
}

/** Deepest nesting of batches inside a batch, and most actions in one proposal. */
export const MAX_BATCH_DEPTH = 3;
export const MAX_BATCH_ACTIONS = 50;

/** propose_batch's arguments, its action types limited to `types` (the kinds the policy offers). */
export function batchSchema(types: readonly SingleActionType[]): ToolArgumentSchema {
  const example =
    types.includes('create_node') && types.includes('create_edge')
      ? ` To connect a new node, give it a nodeKey and use that key in the edge. Example: [{ "type": "create_node", "nodeKey": "log-errors", ` +
        `"typeKey": "log-node", "sheet": "0", "posX": 800, "posY": 300 }, { "type": "create_edge", "sourceKey": "fetch-api", "sourceHandle": "R-1", ` +
        `"targetKey": "log-errors", "targetHandle": "L-0", "sheet": "0" }].`
      : '';
  return {
    type: 'object',
    additionalProperties: false,
    required: ['actions', 'reason'],
    properties: {
      actions: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_BATCH_ACTIONS,
        description:
          `The changes, applied together in this order (all or nothing). Each item is { "type": <action type>, ...its arguments }, ` +
          `with the same arguments as the matching propose_* tool ("reason" optional). Types: ${types.join(', ')}, batch ` +
          `(nested: { "type": "batch", "actions": [...] }, at most ${MAX_BATCH_DEPTH} levels).${example}`,
        items: {
          type: 'object',
          required: ['type'],
          properties: { type: { type: 'string', enum: [...types, 'batch'], description: 'The action type.' } },
        },
      },
      reason,
    },
  };
}

/** A write tool: its name, the action kind the policy rules it by, what it does, and its argument schema. */
export interface WriteTool extends RegisteredTool<WriteToolName> {
  readonly kind: ActionKind;
  /** What it does, without what becomes of a proposal (that depends on the policy: WriteToolOffer). */
  readonly summary: string;
}

/** What becomes of a proposal when no policy says otherwise (every kind validation_required). */
export const APPROVAL_NOTE =
  'Nothing changes until a human approves: the conversation pauses, and the tool result tells you whether it was approved, rejected (with feedback) or failed.';

function writeTool(name: WriteToolName, kind: ActionKind, summary: string, parameters: ToolArgumentSchema): WriteTool {
  return {
    name,
    kind,
    summary,
    definition: { type: 'function', function: { name, description: `${summary} ${APPROVAL_NOTE}`, parameters } },
  };
}

/** The 7 write tools (offered to editors and admins, as the action policy allows: WriteToolOffer), each as offered without a policy. */
export const WRITE_TOOL_REGISTRY = new ToolRegistry<WriteTool>([
  writeTool(
    'propose_create_node',
    'create_node',
    'Propose to add a node to the graph.',
    actionSchema('create_node', true),
  ),
  writeTool(
    'propose_create_edge',
    'create_edge',
    'Propose to connect an "out" handle of one node to an "in" handle of another.',
    actionSchema('create_edge', true),
  ),
  writeTool(
    'propose_delete_node',
    'delete_node',
    'Propose to delete a node (its edges are deleted with it).',
    actionSchema('delete_node', true),
  ),
  writeTool(
    'propose_update_node',
    'update_node',
    'Propose to change fields of an existing node: its process code, data (nested paths allowed), position, size, handles or type.',
    actionSchema('update_node', true),
  ),
  writeTool(
    'propose_move_node',
    'move_node',
    'Propose to move a node to a new position on its sheet.',
    actionSchema('move_node', true),
  ),
  writeTool(
    'propose_delete_edge',
    'delete_edge',
    'Propose to delete an edge, by its key (see list_node_edges).',
    actionSchema('delete_edge', true),
  ),
  writeTool(
    'propose_batch',
    'batch',
    'Propose several changes that only make sense together (e.g. a node and the edges that connect it), approved or rejected as one: ' +
      'prefer it to several separate proposals.',
    batchSchema(SINGLE_ACTION_TYPES),
  ),
]);

/** The 7 write tools in OpenAI function-calling form, as offered without a policy. */
export const WRITE_TOOL_DEFINITIONS: readonly LlmToolDefinition[] = WRITE_TOOL_REGISTRY.definitions;
