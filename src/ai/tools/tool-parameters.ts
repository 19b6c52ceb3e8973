import { JsonSchema, SchemaViolation } from './json-schema.validator';

/** The JSON Schema type an argument of TypeScript type T is declared with. */
type JsonTypeOf<T> = T extends string
  ? 'string'
  : T extends number
    ? 'integer' | 'number'
    : T extends boolean
      ? 'boolean'
      : T extends readonly unknown[]
        ? 'array'
        : 'object';

/** A string argument typed as a union of literals must list them (or some of them) in `enum`. */
type EnumOf<T> = string extends T ? unknown : [T] extends [string] ? { enum: readonly T[] } : unknown;

/**
 * The schema of one argument: a JSON Schema whose `type` matches the argument's TypeScript type,
 * with an `enum` of its values when that type is a union of string literals.
 */
export type ArgumentSchema<T> = JsonSchema & { type: JsonTypeOf<T> } & EnumOf<T>;

/** The fields of A that a call must give. */
type RequiredKeys<A> = { [K in keyof A]-?: undefined extends A[K] ? never : K }[keyof A];

/**
 * The JSON Schema of a tool's arguments, checked by the compiler against their TypeScript type A:
 * one property per field of A, each declared with the JSON type of the field, and `required`
 * naming required fields only (that it names every one of them is the tool's spec to check). It is
 * what the model is shown (LlmToolDefinition.parameters) and what the validator enforces on each
 * call, so a call with no violation is an A (see `conforms`).
 */
export type ToolParameters<A> = JsonSchema & {
  type: 'object';
  additionalProperties: false;
  properties: { [K in keyof A]-?: ArgumentSchema<NonNullable<A[K]>> };
  required?: readonly RequiredKeys<A>[];
};

/**
 * The one place where validated arguments take their type: arguments the validator found no
 * violation in, against the tool's ToolParameters<A>, are an A.
 */
export function conforms<A extends object>(args: object, violations: readonly SchemaViolation[]): args is A {
  return violations.length === 0;
}
