import { ProposedAction } from '../../conversation/proposed-action';
import { describeViolations, JsonSchema, JsonSchemaValidator } from './json-schema.validator';
import {
  actionSchema,
  MAX_BATCH_ACTIONS,
  MAX_BATCH_DEPTH,
  SINGLE_ACTION_TYPES,
  SingleActionType,
  WRITE_TOOL_DEFINITIONS,
} from './write-tool.definitions';
import { WriteToolName } from './write-tool-name';

export type WriteToolParseResult = { ok: true; action: ProposedAction } | { ok: false; error: string };

const TOOL_ACTION_TYPE: Record<Exclude<WriteToolName, 'propose_batch'>, SingleActionType> = {
  propose_create_node: 'create_node',
  propose_create_edge: 'create_edge',
  propose_delete_node: 'delete_node',
  propose_update_node: 'update_node',
  propose_move_node: 'move_node',
  propose_delete_edge: 'delete_edge',
};

/** Strict validators, built once: the tools' own schemas, and the same without `reason` for batch items. */
const TOOL_VALIDATORS = new Map(
  WRITE_TOOL_DEFINITIONS.map((definition) => [
    definition.function.name,
    new JsonSchemaValidator(definition.function.parameters as JsonSchema),
  ]),
);
const ITEM_VALIDATORS = new Map(
  SINGLE_ACTION_TYPES.map((type) => {
    const schema = actionSchema(type, false);
    return [type, new JsonSchemaValidator({ ...schema, properties: { ...schema.properties, type: { const: type } } })];
  }),
);
const NESTED_BATCH_VALIDATOR = new JsonSchemaValidator({
  type: 'object',
  additionalProperties: false,
  required: ['type', 'actions'],
  properties: {
    type: { const: 'batch' },
    actions: { type: 'array', minItems: 1, maxItems: MAX_BATCH_ACTIONS, items: { type: 'object' } },
    reason: { type: 'string', maxLength: 2000 },
  },
});

/** Top-level node fields a proposal may set, and the type of the value (null: any JSON). */
const UPDATABLE_FIELDS: Record<string, 'string' | 'number' | 'object' | null> = {
  process: 'string',
  data: null,
  posX: 'number',
  posY: 'number',
  size: 'object',
  handles: 'object',
  type: 'string',
  typeVersion: null,
};
const NESTED_PATH_ROOTS: Record<string, ReadonlySet<string> | null> = {
  data: null,
  size: new Set(['width', 'height', 'dynamic']),
};
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_CHANGES = 50;

class ParseProblem extends Error {}

/**
 * Validates a write tool's arguments strictly (unknown keys rejected) and
 * builds the ProposedAction. Errors are written for the model, which gets them as the tool result
 * and may call again; they never reach the user as an interrupt.
 */
export function parseWriteToolCall(name: WriteToolName, args: unknown): WriteToolParseResult {
  try {
    const validator = TOOL_VALIDATORS.get(name) as JsonSchemaValidator;
    const violations = validator.validate(args);
    if (violations.length > 0)
      throw new ParseProblem(`Invalid arguments for ${name}: ${describeViolations(violations)}.`);
    const record = args as Record<string, unknown>;
    const reason = (record.reason as string).trim();
    if (name === 'propose_batch') {
      const counter = { count: 0 };
      const actions = parseBatchItems(record.actions as unknown[], 'actions', 1, reason, counter);
      return { ok: true, action: { type: 'batch', payload: { actions }, reason } };
    }
    const { reason: _reason, ...payload } = record;
    return { ok: true, action: buildAction(TOOL_ACTION_TYPE[name], payload, reason, name) };
  } catch (error) {
    if (error instanceof ParseProblem) return { ok: false, error: error.message };
    throw error;
  }
}

function parseBatchItems(
  items: unknown[],
  path: string,
  depth: number,
  inheritedReason: string,
  counter: { count: number },
): ProposedAction[] {
  return items.map((item, index) => {
    const where = `${path}[${index}]`;
    counter.count += 1;
    if (counter.count > MAX_BATCH_ACTIONS) {
      throw new ParseProblem(`Invalid arguments for propose_batch: more than ${MAX_BATCH_ACTIONS} actions in total.`);
    }
    const record = item as Record<string, unknown>;
    const type = record.type;
    if (type === 'batch') {
      if (depth >= MAX_BATCH_DEPTH) {
        throw new ParseProblem(
          `Invalid arguments for propose_batch: ${where} nests batches deeper than ${MAX_BATCH_DEPTH} levels.`,
        );
      }
      const violations = NESTED_BATCH_VALIDATOR.validate(record);
      if (violations.length > 0)
        throw new ParseProblem(`Invalid arguments for propose_batch: ${prefix(where, violations)}.`);
      const reason = typeof record.reason === 'string' && record.reason.trim() ? record.reason.trim() : inheritedReason;
      return {
        type: 'batch',
        payload: {
          actions: parseBatchItems(record.actions as unknown[], `${where}.actions`, depth + 1, reason, counter),
        },
        reason,
      };
    }
    const validator = ITEM_VALIDATORS.get(type as SingleActionType);
    if (!validator) {
      throw new ParseProblem(
        `Invalid arguments for propose_batch: ${where}.type must be one of ${[...SINGLE_ACTION_TYPES, 'batch'].join(', ')}.`,
      );
    }
    const violations = validator.validate(record);
    if (violations.length > 0)
      throw new ParseProblem(`Invalid arguments for propose_batch: ${prefix(where, violations)}.`);
    const { type: _type, reason, ...payload } = record;
    const ownReason = typeof reason === 'string' && reason.trim() ? reason.trim() : inheritedReason;
    return buildAction(type as SingleActionType, payload, ownReason, `propose_batch ${where}`);
  });
}

function buildAction(
  type: SingleActionType,
  payload: Record<string, unknown>,
  reason: string,
  where: string,
): ProposedAction {
  if (type === 'update_node') checkChanges(payload.changes as Record<string, unknown>, where);
  // The schema checked every field; the shapes below are exactly those of ProposedAction.
  return { type, payload, reason } as ProposedAction;
}

function checkChanges(changes: Record<string, unknown>, where: string): void {
  const paths = Object.keys(changes);
  const fail = (message: string) => {
    throw new ParseProblem(`Invalid arguments for ${where}: changes ${message}.`);
  };
  if (paths.length === 0) fail('must contain at least one field path');
  if (paths.length > MAX_CHANGES) fail(`must contain at most ${MAX_CHANGES} field paths`);
  for (const path of paths) {
    const segments = path.split('.');
    const [root, ...rest] = segments;
    if (segments.some((segment) => segment.length === 0)) fail(`path "${path}" has an empty segment`);
    if (segments.some((segment) => FORBIDDEN_SEGMENTS.has(segment))) fail(`path "${path}" is not allowed`);
    if (!Object.prototype.hasOwnProperty.call(UPDATABLE_FIELDS, root)) {
      fail(
        `path "${path}" is not an updatable field (allowed: ${Object.keys(UPDATABLE_FIELDS).join(', ')}, data.<path>, size.width, size.height)`,
      );
    }
    const value = changes[path];
    if (rest.length > 0) {
      if (!Object.prototype.hasOwnProperty.call(NESTED_PATH_ROOTS, root))
        fail(`path "${path}": ${root} has no nested fields`);
      const allowed = NESTED_PATH_ROOTS[root];
      if (allowed && (rest.length !== 1 || !allowed.has(rest[0]))) fail(`path "${path}" is not a field of ${root}`);
      if (root === 'size' && rest[0] !== 'dynamic' && !isFiniteNumber(value)) fail(`"${path}" must be a number`);
      continue;
    }
    const expected = UPDATABLE_FIELDS[root];
    if (expected === 'number' && !isFiniteNumber(value)) fail(`"${path}" must be a number`);
    if (expected === 'string' && typeof value !== 'string') fail(`"${path}" must be a string`);
    if (expected === 'object' && (typeof value !== 'object' || value === null || Array.isArray(value)))
      fail(`"${path}" must be an object`);
    if (root === 'type' && (value as string).trim() === '') fail('"type" must not be empty');
  }
  const handles = changes.handles;
  if (handles !== undefined) {
    const violations = HANDLES_VALIDATOR.validate(handles);
    if (violations.length > 0) fail(`"handles" is invalid: ${describeViolations(violations)}`);
  }
}

const HANDLES_VALIDATOR = new JsonSchemaValidator(
  (actionSchema('create_node', false).properties as Record<string, JsonSchema>).handles,
);

function isFiniteNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

function prefix(where: string, violations: ReturnType<JsonSchemaValidator['validate']>): string {
  return describeViolations(
    violations.map((violation) => ({ ...violation, path: violation.path ? `${where}.${violation.path}` : where })),
  );
}
