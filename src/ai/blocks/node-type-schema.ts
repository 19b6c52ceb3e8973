import type { GraphNode, NodeTypeConfig } from '../../graph/graph.types';
import type { JsonSchema, JsonSchemaType } from '../tools/json-schema.validator';

/** The schema of a node type's data: declared by its configuration, or inferred from the nodes that use it. */
export interface NodeTypeDataSchema {
  source: 'declared' | 'inferred';
  schema: JsonSchema;
  /** The nodes it was inferred from (0 when declared). */
  nodes: number;
}

/** How deep the inference looks into nested data, and how many fields of one object it keeps (the rest allowed). */
const INFERENCE_MAX_DEPTH = 4;
const INFERENCE_MAX_PROPERTIES = 50;

/**
 * A node type's data schema. Nodius's node configurations declare none, so a configuration may carry one of its own
 * (`dataSchema`, a JSON Schema object, kept as an unknown extra field of the stored document); without it, the schema
 * is inferred from the data of the graph's nodes of that type: each field's JSON types, and the fields every one of
 * them has as required. An inferred schema never forbids a field it has not seen.
 */
export function nodeTypeDataSchema(
  config: NodeTypeConfig | undefined,
  nodes: readonly GraphNode[],
): NodeTypeDataSchema {
  const declared = config?.dataSchema;
  if (typeof declared === 'object' && declared !== null && !Array.isArray(declared))
    return { source: 'declared', schema: declared as JsonSchema, nodes: 0 };
  const samples = nodes.map((node) => node.data).filter((data) => data !== undefined && data !== null);
  return { source: 'inferred', schema: samples.length > 0 ? inferSchema(samples, 0) : {}, nodes: samples.length };
}

/** The data a new node of the type starts from: the configuration's `node.data`, else the declared schema's defaults. */
export function defaultDataOf(config: NodeTypeConfig | undefined, schema: NodeTypeDataSchema): unknown {
  if (config?.node && 'data' in config.node) return config.node.data;
  if (schema.source !== 'declared' || !schema.schema.properties) return undefined;
  const defaults = Object.entries(schema.schema.properties).filter(([, property]) => property.default !== undefined);
  return defaults.length > 0
    ? Object.fromEntries(defaults.map(([name, property]) => [name, property.default]))
    : undefined;
}

function inferSchema(values: readonly unknown[], depth: number): JsonSchema {
  const types = [...new Set(values.map(jsonTypeOf))].sort() as JsonSchemaType[];
  const schema: JsonSchema = { type: types.length === 1 ? types[0] : types };
  if (depth >= INFERENCE_MAX_DEPTH) return schema;
  const objects = values.filter(isObject);
  if (objects.length > 0) {
    const names = [...new Set(objects.flatMap((object) => Object.keys(object)))].sort();
    const kept = names.slice(0, INFERENCE_MAX_PROPERTIES);
    schema.properties = Object.fromEntries(
      kept.map((name) => [
        name,
        inferSchema(
          objects.filter((object) => name in object).map((object) => object[name]),
          depth + 1,
        ),
      ]),
    );
    const required = kept.filter((name) => objects.every((object) => name in object));
    // One object says nothing of which of its fields every node needs.
    if (objects.length > 1 && required.length > 0 && types.length === 1) schema.required = required;
  }
  const items = values.filter(Array.isArray).flat();
  if (items.length > 0) schema.items = inferSchema(items, depth + 1);
  return schema;
}

function jsonTypeOf(value: unknown): JsonSchemaType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return 'number';
    default:
      return 'object';
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
