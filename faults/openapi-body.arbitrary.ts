import fc from 'fast-check';

/** The part of an OpenAPI 3 schema object the generator reads. */
export interface OpenApiSchema {
  $ref?: string;
  type?: string;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  items?: OpenApiSchema;
  enum?: unknown[];
  allOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
  anyOf?: OpenApiSchema[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  example?: unknown;
  additionalProperties?: boolean | OpenApiSchema;
}

export type SchemaComponents = Record<string, OpenApiSchema>;

/** Strings a request field is likely to meet in the wild, beside random ones. */
const TRICKY_STRINGS = [
  '',
  ' ',
  'nba-workflow',
  'fetch-api',
  'ai_0',
  '..',
  '../etc/passwd',
  '\u0000',
  '%00',
  '<script>',
  "'; DROP TABLE graphs; --",
  '🙂',
  'x'.repeat(300),
];
/** Keys a client might add to any object: the prototype keys, near-misses of real fields, noise. */
const EXTRA_KEYS = ['__proto__', 'constructor', 'prototype', 'extra', 'graphkey', '_id', 'role', 'workspace'];

function resolve(schema: OpenApiSchema, components: SchemaComponents): OpenApiSchema {
  let current = schema;
  for (let hops = 0; current.$ref && hops < 10; hops += 1)
    current = components[current.$ref.replace('#/components/schemas/', '')] ?? {};
  return current;
}

/** A value of the schema's type (shape-valid, content random), `depth` bounding recursion through $refs. */
export function valueFor(schema: OpenApiSchema, components: SchemaComponents, depth = 0): fc.Arbitrary<unknown> {
  const resolved = resolve(schema, components);
  const variants = resolved.oneOf ?? resolved.anyOf ?? resolved.allOf;
  if (variants?.length) return fc.oneof(...variants.map((variant) => valueFor(variant, components, depth + 1)));
  if (resolved.enum?.length) return fc.constantFrom(...resolved.enum);
  if (depth > 6) return fc.constant(null);
  switch (resolved.type) {
    case 'object': {
      const properties = resolved.properties ?? {};
      const names = Object.keys(properties);
      if (names.length === 0)
        return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
      const record = Object.fromEntries(names.map((name) => [name, valueFor(properties[name], components, depth + 1)]));
      return fc.record(record, { requiredKeys: (resolved.required ?? []).filter((name) => names.includes(name)) });
    }
    case 'array':
      return fc.array(
        resolved.items ? valueFor(resolved.items, components, depth + 1) : fc.jsonValue({ maxDepth: 2 }),
        { maxLength: 4 },
      );
    case 'string': {
      const random = fc.string({ maxLength: Math.min(resolved.maxLength ?? 64, 64), unit: 'grapheme' });
      // The documented example often names what exists (the demo graph): valid requests get as far as the handlers.
      const tricky = fc.constantFrom(...TRICKY_STRINGS);
      return resolved.example !== undefined
        ? fc.oneof({ weight: 3, arbitrary: fc.constant(resolved.example) }, random, tricky)
        : fc.oneof(random, tricky);
    }
    case 'integer':
      return fc.oneof(fc.integer({ min: resolved.minimum ?? -1_000, max: resolved.maximum ?? 1_000 }), fc.integer());
    case 'number':
      return fc.oneof(
        fc.double({
          noNaN: true,
          noDefaultInfinity: true,
          min: resolved.minimum ?? -1e6,
          max: resolved.maximum ?? 1e6,
        }),
        fc.integer(),
      );
    case 'boolean':
      return fc.boolean();
    default:
      return fc.jsonValue({ maxDepth: 3 });
  }
}

/** A value of another JSON type than the schema's (what a confused or hostile client sends). */
const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.string({ maxLength: 12 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.object({ maxDepth: 1 }),
);

/** Changes one thing of an object: a field of the wrong type, a field removed, or an unknown key added. */
function mutated(value: unknown): fc.Arbitrary<unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return wrongType;
  const keys = Object.keys(value);
  return fc.oneof(
    // Written as text and parsed back: only JSON.parse makes `__proto__` an own key, as the service's parser does.
    fc
      .tuple(fc.constantFrom(...EXTRA_KEYS), fc.jsonValue({ maxDepth: 2 }))
      .map(([key, extra]) =>
        JSON.parse(
          `{${JSON.stringify(key)}:${JSON.stringify(extra ?? null)}${keys.length ? ',' : ''}${JSON.stringify(value).slice(1)}`,
        ),
      ),
    ...(keys.length
      ? [fc.tuple(fc.constantFrom(...keys), wrongType).map(([key, wrong]) => ({ ...value, [key]: wrong }))]
      : []),
    ...(keys.length
      ? [
          fc
            .constantFrom(...keys)
            .map((key) => Object.fromEntries(Object.entries(value).filter(([name]) => name !== key))),
        ]
      : []),
  );
}

/** Raw texts that are not a sane JSON object: broken syntax, primitives, hostile nesting, large strings. */
const hostileText = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '{"a":',
    'null',
    'true',
    '"text"',
    '[]',
    '[[[[',
    '{"__proto__":{"admin":true}}',
    '{"constructor":{"prototype":{}}}',
  ),
  fc.integer({ min: 65, max: 3_000 }).map((levels) => `${'['.repeat(levels)}${']'.repeat(levels)}`),
  fc.integer({ min: 65, max: 3_000 }).map((levels) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`),
  fc.integer({ min: 1, max: 70 }).map((kilobytes) => JSON.stringify({ message: 'x'.repeat(kilobytes * 1024) })),
  fc.string({ maxLength: 200, unit: 'binary' }),
);

/**
 * The body texts fuzzed on one operation: mostly shaped by its OpenAPI request schema (valid in
 * form), then one-thing-wrong variants, any JSON, and hostile texts.
 */
export function requestBodyText(schema: OpenApiSchema | undefined, components: SchemaComponents): fc.Arbitrary<string> {
  const shaped = schema ? valueFor(schema, components) : fc.jsonValue({ maxDepth: 3 });
  return fc.oneof(
    { weight: 5, arbitrary: shaped.map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 3, arbitrary: shaped.chain(mutated).map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 1, arbitrary: hostileText },
  );
}

/** A path parameter: a realistic key, a tricky string or a random one (sent URL-encoded). */
export const pathParameter: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('nba-workflow', 'ai_0mwwf4bw14198d42291f79d9d', 'missing'),
  fc.constantFrom(...TRICKY_STRINGS),
  fc.string({ maxLength: 40, unit: 'grapheme' }),
);
