import { JsonSchemaValidator } from './json-schema.validator';
import { WRITE_TOOL_DEFINITIONS } from './write-tool.definitions';
import { isWriteTool, WRITE_TOOL_NAMES } from './write-tool-name';
import { parseWriteToolCall } from './write-tool.parser';

const createNodeArgs = { typeKey: 'filter', sheet: '0', posX: 100, posY: 200, reason: 'filter the players' };

describe(parseWriteToolCall.name, () => {
  it('defines the 7 write tools with strict, enforceable schemas and descriptions', () => {
    expect(WRITE_TOOL_DEFINITIONS.map((definition) => definition.function.name)).toEqual([...WRITE_TOOL_NAMES]);
    for (const definition of WRITE_TOOL_DEFINITIONS) {
      expect(definition.function.description.length).toBeGreaterThan(40);
      expect(definition.function.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      expect(() => new JsonSchemaValidator(definition.function.parameters)).not.toThrow();
    }
  });

  it('recognises write tools by exact name', () => {
    expect(WRITE_TOOL_NAMES.every((name) => isWriteTool(name))).toBe(true);
    expect(isWriteTool('search_nodes')).toBe(false);
    expect(isWriteTool('propose_everything')).toBe(false);
  });

  it('parses propose_create_node into a create_node action (handles and data kept)', () => {
    const handles = { R: { position: 'fix', point: [{ id: 'R-0', type: 'out', accept: 'any' }] } };
    const result = parseWriteToolCall('propose_create_node', {
      ...createNodeArgs,
      nodeKey: 'top-filter',
      handles,
      data: { min: 3 },
    });
    expect(result).toEqual({
      ok: true,
      action: {
        type: 'create_node',
        payload: {
          nodeKey: 'top-filter',
          typeKey: 'filter',
          sheet: '0',
          posX: 100,
          posY: 200,
          handles,
          data: { min: 3 },
        },
        reason: 'filter the players',
      },
    });
  });

  it('rejects unknown keys, missing fields and wrong types with messages the model can act on', () => {
    const unknownKey = parseWriteToolCall('propose_create_node', { ...createNodeArgs, color: 'red' });
    expect(unknownKey).toEqual({ ok: false, error: expect.stringContaining('color is not an allowed property') });

    const missing = parseWriteToolCall('propose_create_edge', {
      sourceKey: 'a',
      sourceHandle: 'R-0',
      targetKey: 'b',
      sheet: '0',
      reason: 'x',
    });
    expect(missing).toEqual({ ok: false, error: expect.stringContaining('targetHandle is required') });

    const wrongType = parseWriteToolCall('propose_move_node', { nodeKey: 'root', posX: '10', posY: 0, reason: 'x' });
    expect(wrongType).toEqual({ ok: false, error: expect.stringContaining('posX must be a number') });

    const noReason = parseWriteToolCall('propose_delete_node', { nodeKey: 'root' });
    expect(noReason).toEqual({ ok: false, error: expect.stringContaining('reason is required') });

    const badHandle = parseWriteToolCall('propose_create_node', {
      ...createNodeArgs,
      handles: { R: { position: 'fix', point: [{ id: 'R-0', type: 'sideways', accept: 'any' }] } },
    });
    expect(badHandle.ok).toBe(false);
  });

  it('parses update_node changes with nested data paths and refuses forbidden or ill-typed paths', () => {
    expect(
      parseWriteToolCall('propose_update_node', {
        nodeKey: 'filter-active',
        changes: { 'data.minGames': 5, process: 'next(0, {});', 'size.width': 300 },
        reason: 'x',
      }),
    ).toMatchObject({ ok: true, action: { type: 'update_node', payload: { nodeKey: 'filter-active' } } });

    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'at least one field path'],
      [{ _key: 'other' }, 'not an updatable field'],
      [{ 'data.__proto__.polluted': true }, 'not allowed'],
      [{ 'data..x': 1 }, 'empty segment'],
      [{ process: 42 }, '"process" must be a string'],
      [{ posX: 'left' }, '"posX" must be a number'],
      [{ 'process.inner': 'x' }, 'has no nested fields'],
      [{ 'size.depth': 3 }, 'not a field of size'],
      [{ handles: { Q: {} } }, '"handles" is invalid'],
    ];
    for (const [changes, message] of cases) {
      const result = parseWriteToolCall('propose_update_node', { nodeKey: 'n', changes, reason: 'x' });
      expect(result).toEqual({ ok: false, error: expect.stringContaining(message) });
    }
  });

  it('parses propose_batch items ({ type, ...payload }), nested batches, and inherits the reason', () => {
    const result = parseWriteToolCall('propose_batch', {
      reason: 'log fetch errors',
      actions: [
        { type: 'create_node', nodeKey: 'log-errors', typeKey: 'log-node', sheet: '0', posX: 1, posY: 2 },
        {
          type: 'batch',
          actions: [
            {
              type: 'create_edge',
              sourceKey: 'fetch-api',
              sourceHandle: 'R-1',
              targetKey: 'log-errors',
              targetHandle: 'L-0',
              sheet: '0',
              reason: 'wire',
            },
          ],
        },
      ],
    });
    expect(result).toEqual({
      ok: true,
      action: {
        type: 'batch',
        reason: 'log fetch errors',
        payload: {
          actions: [
            {
              type: 'create_node',
              payload: { nodeKey: 'log-errors', typeKey: 'log-node', sheet: '0', posX: 1, posY: 2 },
              reason: 'log fetch errors',
            },
            {
              type: 'batch',
              reason: 'log fetch errors',
              payload: {
                actions: [
                  {
                    type: 'create_edge',
                    payload: {
                      sourceKey: 'fetch-api',
                      sourceHandle: 'R-1',
                      targetKey: 'log-errors',
                      targetHandle: 'L-0',
                      sheet: '0',
                    },
                    reason: 'wire',
                  },
                ],
              },
            },
          ],
        },
      },
    });
  });

  it('rejects invalid batch items with their position, unknown types, empty batches and too deep nesting', () => {
    const badItem = parseWriteToolCall('propose_batch', {
      reason: 'x',
      actions: [
        { type: 'delete_node', nodeKey: 'a' },
        { type: 'move_node', nodeKey: 'b', posX: 1 },
      ],
    });
    expect(badItem).toEqual({ ok: false, error: expect.stringContaining('actions[1].posY is required') });

    const unknownType = parseWriteToolCall('propose_batch', {
      reason: 'x',
      actions: [{ type: 'explode', nodeKey: 'a' }],
    });
    expect(unknownType).toEqual({ ok: false, error: expect.stringContaining('actions[0].type must be one of') });

    const extraKey = parseWriteToolCall('propose_batch', {
      reason: 'x',
      actions: [{ type: 'delete_edge', edgeKey: 'e', force: true }],
    });
    expect(extraKey).toEqual({ ok: false, error: expect.stringContaining('force is not an allowed property') });

    expect(parseWriteToolCall('propose_batch', { reason: 'x', actions: [] }).ok).toBe(false);

    const nest = (depth: number): Record<string, unknown> =>
      depth === 0 ? { type: 'delete_node', nodeKey: 'a' } : { type: 'batch', actions: [nest(depth - 1)] };
    expect(parseWriteToolCall('propose_batch', { reason: 'x', actions: [nest(2)] }).ok).toBe(true);
    expect(parseWriteToolCall('propose_batch', { reason: 'x', actions: [nest(3)] })).toEqual({
      ok: false,
      error: expect.stringContaining('deeper than 3 levels'),
    });
  });

  it('caps the total number of actions of a batch, nested ones included', () => {
    const many = Array.from({ length: 30 }, (_, index) => ({ type: 'delete_node', nodeKey: `n${index}` }));
    const result = parseWriteToolCall('propose_batch', {
      reason: 'x',
      actions: [
        { type: 'batch', actions: many },
        { type: 'batch', actions: many },
      ],
    });
    expect(result).toEqual({ ok: false, error: expect.stringContaining('more than 50 actions') });
  });
});
