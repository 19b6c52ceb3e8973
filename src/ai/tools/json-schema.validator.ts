/**
 * A strict validator for the JSON-Schema subset our tool definitions use. Tool arguments come
 * from a model, so everything is checked and the messages are written for the model to correct
 * its call. The same schema object is what the model is shown (LlmToolDefinition.parameters).
 *
 * Supported keywords:
 *   type                 "object" | "array" | "string" | "number" | "integer" | "boolean" | "null", or a list
 *   enum, const          exact values (compared with JSON equality)
 *   minLength, maxLength, pattern           strings (pattern: JavaScript RegExp syntax, unanchored)
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

export interface SchemaViolation {
  /** Where: "" for the arguments themselves, else e.g. "payload.handles.R.point[0].type". */
  path: string;
  message: string;
}

const SUPPORTED_KEYWORDS: ReadonlySet<string> = new Set([
  'type', 'enum', 'const', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum',
  'exclusiveMaximum', 'properties', 'required', 'additionalProperties', 'items', 'minItems', 'maxItems', 'anyOf',
  'oneOf', 'description', 'title', 'default', 'examples', '$comment',
]);

export class JsonSchemaValidator {
  private readonly patterns = new Map<string, RegExp>();
  /** Violations of a `const`: in a union, the branch whose discriminator differs is not the closest. */
  private readonly constViolations = new WeakSet<SchemaViolation>();

  /** Throws when the schema uses a keyword this validator does not enforce. */
  constructor(readonly schema: JsonSchema) {
    this.checkSchema(schema, '#');
  }

  /** Every problem found (empty when valid). */
  validate(value: unknown): SchemaViolation[] {
    const violations: SchemaViolation[] = [];
    this.check(this.schema, value, '', violations);
    return violations;
  }

  isValid(value: unknown): boolean {
    return this.validate(value).length === 0;
  }

  private checkSchema(schema: JsonSchema, where: string): void {
    if (!schema || typeof schema !== 'object') throw new Error(`Invalid schema at ${where}: not an object`);
    for (const keyword of Object.keys(schema)) {
      if (!SUPPORTED_KEYWORDS.has(keyword)) throw new Error(`Unsupported JSON Schema keyword "${keyword}" at ${where}`);
    }
    if (schema.pattern !== undefined) this.patterns.set(schema.pattern, new RegExp(schema.pattern, 'u'));
    for (const [name, property] of Object.entries(schema.properties ?? {})) this.checkSchema(property, `${where}/properties/${name}`);
    if (typeof schema.additionalProperties === 'object') this.checkSchema(schema.additionalProperties, `${where}/additionalProperties`);
    if (schema.items) this.checkSchema(schema.items, `${where}/items`);
    schema.anyOf?.forEach((branch, index) => this.checkSchema(branch, `${where}/anyOf/${index}`));
    schema.oneOf?.forEach((branch, index) => this.checkSchema(branch, `${where}/oneOf/${index}`));
  }

  private check(schema: JsonSchema, value: unknown, path: string, out: SchemaViolation[]): void {
    const problem = (message: string) => out.push({ path, message });

    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      if (!types.some((type) => matchesType(type, value))) {
        problem(`must be ${types.map(article).join(' or ')}, got ${describeValue(value)}`);
        return;
      }
    }
    if (schema.const !== undefined && !jsonEqual(schema.const, value)) {
      const violation = { path, message: `must be ${JSON.stringify(schema.const)}` };
      this.constViolations.add(violation);
      out.push(violation);
      return;
    }
    if (schema.enum && !schema.enum.some((allowed) => jsonEqual(allowed, value))) {
      problem(`must be one of ${schema.enum.map((allowed) => JSON.stringify(allowed)).join(', ')}, got ${JSON.stringify(value)}`);
      return;
    }

    if (typeof value === 'string') {
      if (schema.minLength !== undefined && [...value].length < schema.minLength) {
        problem(schema.minLength === 1 ? 'must not be empty' : `must have at least ${schema.minLength} characters`);
      }
      if (schema.maxLength !== undefined && [...value].length > schema.maxLength) {
        problem(`must have at most ${schema.maxLength} characters`);
      }
      if (schema.pattern !== undefined && !(this.patterns.get(schema.pattern) as RegExp).test(value)) {
        problem(`must match the pattern ${schema.pattern}`);
      }
    }

    if (typeof value === 'number') {
      if (schema.minimum !== undefined && value < schema.minimum) problem(`must be >= ${schema.minimum}`);
      if (schema.maximum !== undefined && value > schema.maximum) problem(`must be <= ${schema.maximum}`);
      if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) problem(`must be > ${schema.exclusiveMinimum}`);
      if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) problem(`must be < ${schema.exclusiveMaximum}`);
    }

    if (Array.isArray(value)) {
      if (schema.minItems !== undefined && value.length < schema.minItems) problem(`must have at least ${schema.minItems} item(s)`);
      if (schema.maxItems !== undefined && value.length > schema.maxItems) problem(`must have at most ${schema.maxItems} item(s)`);
      if (schema.items) value.forEach((item, index) => this.check(schema.items as JsonSchema, item, `${path}[${index}]`, out));
    }

    if (isPlainObject(value)) {
      for (const name of schema.required ?? []) {
        if (!Object.prototype.hasOwnProperty.call(value, name) || value[name] === undefined) {
          out.push({ path: join(path, name), message: 'is required' });
        }
      }
      const properties = schema.properties ?? {};
      for (const [name, item] of Object.entries(value)) {
        if (item === undefined) continue;
        const propertySchema = Object.prototype.hasOwnProperty.call(properties, name) ? properties[name] : undefined;
        if (propertySchema) {
          this.check(propertySchema, item, join(path, name), out);
        } else if (schema.additionalProperties === false) {
          const known = Object.keys(properties);
          out.push({
            path: join(path, name),
            message: `is not an allowed property${known.length > 0 ? ` (allowed: ${known.join(', ')})` : ' (no properties allowed)'}`,
          });
        } else if (typeof schema.additionalProperties === 'object') {
          this.check(schema.additionalProperties, item, join(path, name), out);
        }
      }
    }

    if (schema.anyOf) this.checkAlternatives(schema.anyOf, value, path, out, 'any');
    if (schema.oneOf) this.checkAlternatives(schema.oneOf, value, path, out, 'one');
  }

  private checkAlternatives(
    branches: JsonSchema[],
    value: unknown,
    path: string,
    out: SchemaViolation[],
    mode: 'any' | 'one',
  ): void {
    const results = branches.map((branch) => {
      const violations: SchemaViolation[] = [];
      this.check(branch, value, path, violations);
      return violations;
    });
    const matching = results.filter((violations) => violations.length === 0).length;
    if (mode === 'one' && matching > 1) {
      out.push({ path, message: `matches ${matching} of the allowed shapes; it must match exactly one` });
      return;
    }
    if (matching > 0) return;
    // Report the closest alternative: for a discriminated union, the branch whose discriminator matched.
    const distance = (violations: SchemaViolation[]) =>
      (violations.some((violation) => this.constViolations.has(violation)) ? 1_000 : 0) + violations.length;
    const closest = results.reduce((best, current) => (distance(current) < distance(best) ? current : best));
    out.push({ path, message: `does not match any of the ${branches.length} allowed shapes; closest problems follow` });
    out.push(...closest);
  }
}

/** One line per problem, for error results shown to the model. */
export function describeViolations(violations: SchemaViolation[]): string {
  return violations.map((violation) => `${violation.path || '(arguments)'} ${violation.message}`).join('; ');
}

function matchesType(type: JsonSchemaType, value: unknown): boolean {
  switch (type) {
    case 'object':
      return isPlainObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function article(type: JsonSchemaType): string {
  return type === 'null' ? 'null' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return `the number ${value}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function join(path: string, name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? (path ? `${path}.${name}` : name) : `${path}[${JSON.stringify(name)}]`;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}
