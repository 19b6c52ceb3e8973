import Ajv, { ValidateFunction } from 'ajv';
import { SchemaViolation, wordSchemaErrors } from './schema-violation.wording';

export type { SchemaViolation } from './schema-violation.wording';

/**
 * Tool arguments checked against the JSON Schema the model is shown (LlmToolDefinition.parameters),
 * by ajv (strict mode, every error), with messages written for the model to correct its call.
 *
 * Schemas use this subset, whose failures schema-violation.wording.ts puts into words:
 *   type                 "object" | "array" | "string" | "number" | "integer" | "boolean" | "null", or a list
 *   enum, const          exact values (compared with JSON equality)
 *   minLength, maxLength, pattern           strings (lengths in code points; pattern: RegExp with the u flag, unanchored)
 *   minimum, maximum, exclusiveMinimum, exclusiveMaximum   numbers
 *   properties, required, additionalProperties (false, true or a schema)   objects
 *   items, minItems, maxItems               arrays
 *   anyOf, oneOf         alternatives (when none matches, the closest one's problems are reported)
 *   description, title, default, examples, $comment   annotations, ignored (`default` is NOT applied)
 * Any other keyword throws when the validator is built: an unenforced rule must not pass silently.
 * An object schema without `additionalProperties` accepts unknown keys (as JSON Schema does): write
 * `additionalProperties: false` to be strict.
 */

export type JsonSchemaType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

export type JsonSchema = {
  type?: JsonSchemaType | JsonSchemaType[];
  enum?: readonly unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  description?: string;
  title?: string;
  default?: unknown;
  examples?: unknown[];
  $comment?: string;
};

const SUPPORTED_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'enum',
  'const',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'anyOf',
  'oneOf',
  'description',
  'title',
  'default',
  'examples',
  '$comment',
]);

/** One ajv for every tool schema: strict (unknown keywords, ignored defaults and loose types refused), all errors, with the failing data. */
const ajv = new Ajv({ strict: true, allErrors: true, verbose: true, allowUnionTypes: true });

export class JsonSchemaValidator {
  private readonly check: ValidateFunction;

  /** Throws when the schema uses a keyword outside the subset above, or one ajv's strict mode refuses. */
  constructor(readonly schema: JsonSchema) {
    checkKeywords(schema, '#');
    this.check = ajv.compile(schema);
  }

  /** Every problem found (empty when valid), in the order of the value's properties. */
  validate(value: unknown): SchemaViolation[] {
    if (this.check(value)) return [];
    return wordSchemaErrors(this.check.errors ?? [], value);
  }

  isValid(value: unknown): boolean {
    return this.check(value) === true;
  }
}

/** One line per problem, for error results shown to the model. */
export function describeViolations(violations: SchemaViolation[]): string {
  return violations.map((violation) => `${violation.path || '(arguments)'} ${violation.message}`).join('; ');
}

function checkKeywords(schema: JsonSchema, where: string): void {
  if (!schema || typeof schema !== 'object') throw new Error(`Invalid schema at ${where}: not an object`);
  for (const keyword of Object.keys(schema)) {
    if (!SUPPORTED_KEYWORDS.has(keyword)) throw new Error(`Unsupported JSON Schema keyword "${keyword}" at ${where}`);
  }
  for (const [name, property] of Object.entries(schema.properties ?? {}))
    checkKeywords(property, `${where}/properties/${name}`);
  if (typeof schema.additionalProperties === 'object')
    checkKeywords(schema.additionalProperties, `${where}/additionalProperties`);
  if (schema.items) checkKeywords(schema.items, `${where}/items`);
  schema.anyOf?.forEach((branch, index) => checkKeywords(branch, `${where}/anyOf/${index}`));
  schema.oneOf?.forEach((branch, index) => checkKeywords(branch, `${where}/oneOf/${index}`));
}
