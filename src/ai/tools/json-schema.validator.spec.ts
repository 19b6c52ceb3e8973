import { describeViolations, JsonSchema, JsonSchemaValidator } from './json-schema.validator';

const handleSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type'],
  properties: {
    id: { type: 'string', minLength: 1 },
    type: { type: 'string', enum: ['in', 'out'] },
  },
};

const schema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['nodeKey'],
  properties: {
    nodeKey: { type: 'string', minLength: 1, maxLength: 20, description: 'a local key' },
    depth: { type: 'integer', minimum: 1, maximum: 3, default: 2 },
    ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
    direction: { type: 'string', enum: ['in', 'out', 'any'] },
    tags: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' }, minItems: 1, maxItems: 2 },
    handles: { type: 'object', additionalProperties: { type: 'array', items: handleSchema } },
    note: { type: ['string', 'null'] },
    extra: { type: 'object' },
  },
};

const validator = new JsonSchemaValidator(schema);

describe(JsonSchemaValidator.name, () => {
  it('accepts valid values', () => {
    expect(validator.validate({ nodeKey: 'fetch-api' })).toEqual([]);
    expect(
      validator.isValid({
        nodeKey: 'a',
        depth: 3,
        ratio: 0.5,
        direction: 'any',
        tags: ['x'],
        handles: { R: [{ id: 'R-0', type: 'out' }] },
        note: null,
        extra: { anything: [1, { goes: true }] },
      }),
    ).toBe(true);
  });

  it('checks types, including integer vs number and null', () => {
    expect(validator.validate('text')).toEqual([{ path: '', message: 'must be an object, got string "text"' }]);
    expect(validator.validate([])).toEqual([{ path: '', message: 'must be an object, got an array' }]);
    expect(validator.validate({ nodeKey: 'a', depth: 1.5 })).toEqual([
      { path: 'depth', message: 'must be an integer, got the number 1.5' },
    ]);
    expect(validator.validate({ nodeKey: 'a', depth: '2' })).toEqual([
      { path: 'depth', message: 'must be an integer, got string "2"' },
    ]);
    expect(validator.validate({ nodeKey: 'a', note: 3 })).toEqual([
      { path: 'note', message: 'must be a string or null, got number 3' },
    ]);
  });

  it('reports missing required properties and unknown ones', () => {
    expect(validator.validate({ nodekey: 'a' })).toEqual([
      { path: 'nodeKey', message: 'is required' },
      { path: 'nodekey', message: expect.stringMatching(/^is not an allowed property \(allowed: nodeKey, depth, /) },
    ]);
    expect(validator.validate({ nodeKey: undefined })).toEqual([{ path: 'nodeKey', message: 'is required' }]);
  });

  it('checks enums, string lengths and patterns', () => {
    expect(validator.validate({ nodeKey: 'a', direction: 'inbound' })).toEqual([
      { path: 'direction', message: 'must be one of "in", "out", "any", got "inbound"' },
    ]);
    expect(validator.validate({ nodeKey: '' })).toEqual([{ path: 'nodeKey', message: 'must not be empty' }]);
    expect(validator.validate({ nodeKey: 'x'.repeat(21) })).toEqual([
      { path: 'nodeKey', message: 'must have at most 20 characters' },
    ]);
    expect(validator.validate({ nodeKey: 'a', tags: ['ok', 'NOT'] })).toEqual([
      { path: 'tags[1]', message: 'must match the pattern ^[a-z]+$' },
    ]);
  });

  it('checks numeric bounds', () => {
    expect(validator.validate({ nodeKey: 'a', depth: 0 })).toEqual([{ path: 'depth', message: 'must be >= 1' }]);
    expect(validator.validate({ nodeKey: 'a', depth: 4 })).toEqual([{ path: 'depth', message: 'must be <= 3' }]);
    expect(validator.validate({ nodeKey: 'a', ratio: 0 })).toEqual([{ path: 'ratio', message: 'must be > 0' }]);
    expect(validator.validate({ nodeKey: 'a', ratio: 1 })).toEqual([{ path: 'ratio', message: 'must be < 1' }]);
  });

  it('checks array sizes and nested objects with their paths', () => {
    expect(validator.validate({ nodeKey: 'a', tags: [] })).toEqual([
      { path: 'tags', message: 'must have at least 1 item(s)' },
    ]);
    expect(validator.validate({ nodeKey: 'a', tags: ['a', 'b', 'c'] })).toEqual([
      { path: 'tags', message: 'must have at most 2 item(s)' },
    ]);
    expect(
      validator.validate({
        nodeKey: 'a',
        handles: { R: [{ id: 'R-0', type: 'sideways', accept: 'any' }], 'my side': 1 },
      }),
    ).toEqual([
      { path: 'handles.R[0].type', message: 'must be one of "in", "out", got "sideways"' },
      { path: 'handles.R[0].accept', message: 'is not an allowed property (allowed: id, type)' },
      { path: 'handles["my side"]', message: 'must be an array, got number 1' },
    ]);
  });

  it('reports every problem at once', () => {
    expect(validator.validate({ depth: 9, direction: 'up', foo: 1 })).toHaveLength(4);
  });

  describe('alternatives', () => {
    const action: JsonSchema = {
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'nodeKey'],
          properties: { type: { const: 'delete_node' }, nodeKey: { type: 'string' } },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'edgeKey'],
          properties: { type: { const: 'delete_edge' }, edgeKey: { type: 'string' } },
        },
      ],
    };
    const actions = new JsonSchemaValidator({ type: 'array', items: action });

    it('accepts a value matching one branch', () => {
      expect(
        actions.validate([
          { type: 'delete_node', nodeKey: 'a' },
          { type: 'delete_edge', edgeKey: 'e' },
        ]),
      ).toEqual([]);
    });

    it('reports the closest branch when none matches', () => {
      expect(actions.validate([{ type: 'delete_edge', nodeKey: 'a' }])).toEqual([
        { path: '[0]', message: 'does not match any of the 2 allowed shapes; closest problems follow' },
        { path: '[0].edgeKey', message: 'is required' },
        { path: '[0].nodeKey', message: 'is not an allowed property (allowed: type, edgeKey)' },
      ]);
    });

    it('reports each item against its own closest branch', () => {
      expect(actions.validate([{ type: 'delete_node' }, 'x', { type: 'delete_edge', edgeKey: 3 }])).toEqual([
        { path: '[0]', message: 'does not match any of the 2 allowed shapes; closest problems follow' },
        { path: '[0].nodeKey', message: 'is required' },
        { path: '[1]', message: 'does not match any of the 2 allowed shapes; closest problems follow' },
        { path: '[1]', message: 'must be an object, got string "x"' },
        { path: '[2]', message: 'does not match any of the 2 allowed shapes; closest problems follow' },
        { path: '[2].edgeKey', message: 'must be a string, got number 3' },
      ]);
    });

    it('oneOf rejects a value matching several branches; anyOf accepts it', () => {
      const branches: JsonSchema[] = [{ type: 'integer' }, { type: 'number' }];
      expect(new JsonSchemaValidator({ oneOf: branches }).validate(1)).toEqual([
        { path: '', message: 'matches 2 of the allowed shapes; it must match exactly one' },
      ]);
      expect(new JsonSchemaValidator({ oneOf: branches }).validate(1.5)).toEqual([]);
      expect(new JsonSchemaValidator({ anyOf: branches }).validate(1)).toEqual([]);
    });
  });

  it('accepts unknown properties unless additionalProperties is false', () => {
    expect(
      new JsonSchemaValidator({ type: 'object', properties: { a: { type: 'string' } } }).validate({ b: 1 }),
    ).toEqual([]);
    expect(new JsonSchemaValidator({ type: 'object', additionalProperties: false }).validate({ b: 1 })).toEqual([
      { path: 'b', message: 'is not an allowed property (no properties allowed)' },
    ]);
  });

  it('refuses a schema with a keyword it would not enforce', () => {
    expect(
      () => new JsonSchemaValidator({ type: 'object', properties: { a: { format: 'email' } as JsonSchema } }),
    ).toThrow('Unsupported JSON Schema keyword "format" at #/properties/a');
  });

  it("refuses what ajv's strict mode refuses: a required property the schema does not define", () => {
    expect(
      () => new JsonSchemaValidator({ type: 'object', properties: { a: { type: 'string' } }, required: ['b'] }),
    ).toThrow(/strict mode/);
  });

  it('formats violations for the model', () => {
    expect(
      describeViolations([
        { path: '', message: 'must be an object' },
        { path: 'depth', message: 'must be <= 3' },
      ]),
    ).toBe('(arguments) must be an object; depth must be <= 3');
  });
});
