import { nbaWorkflowDemo } from '../../graph/demo/nba-workflow.demo';
import { ActionConverter, GENERATED_KEY_PREFIX } from './action.converter';
import { ProposedAction } from '../../conversation/proposed-action';

const GRAPH = 'nba-workflow';

describe(ActionConverter.name, () => {
  const converter = new ActionConverter(nbaWorkflowDemo.nodeConfigs);

  it('turns move_node into two animated set instructions on posX and posY, on the default sheet', () => {
    const result = converter.convert(
      { type: 'move_node', payload: { nodeKey: 'root', posX: 40, posY: -12 }, reason: 'tidy' },
      GRAPH,
      '1',
      'call_1',
    );
    expect(result).toEqual({
      instructions: [
        { nodeKey: 'root', op: 'set', path: ['posX'], value: 40, animatePos: true },
        { nodeKey: 'root', op: 'set', path: ['posY'], value: -12, animatePos: true },
      ],
      nodesToCreate: [],
      edgesToCreate: [],
      nodeKeysToDelete: [],
      edgeKeysToDelete: [],
      sheetId: '1',
    });
  });

  it('turns update_node into one set per change, splitting nested data paths, with triggerHtmlRender', () => {
    const result = converter.convert(
      {
        type: 'update_node',
        payload: {
          nodeKey: 'filter-active',
          changes: { 'data.minGames': 5, process: 'next(0, {});', 'data.a.b': [1] },
        },
        reason: 'lower the threshold',
      },
      GRAPH,
      '0',
      'call_2',
    );
    expect(result.instructions).toEqual([
      { nodeKey: 'filter-active', op: 'set', path: ['data', 'minGames'], value: 5, triggerHtmlRender: true },
      { nodeKey: 'filter-active', op: 'set', path: ['process'], value: 'next(0, {});', triggerHtmlRender: true },
      { nodeKey: 'filter-active', op: 'set', path: ['data', 'a', 'b'], value: [1], triggerHtmlRender: true },
    ]);
    expect(result.sheetId).toBe('0');
  });

  it('builds a full node for create_node, with handles and size defaulting to the type config', () => {
    const result = converter.convert(
      {
        type: 'create_node',
        payload: {
          typeKey: 'filter',
          sheet: '1',
          posX: 10,
          posY: 20,
          process: 'next(0, incoming[0].data);',
          data: { top: 3 },
        },
        reason: 'filter step',
      },
      GRAPH,
      '0',
      'call_3',
    );
    const filterConfig = nbaWorkflowDemo.nodeConfigs.find((config) => config._key === 'filter');
    expect(result.nodesToCreate).toHaveLength(1);
    const node = result.nodesToCreate[0];
    expect(node).toMatchObject({
      graphKey: GRAPH,
      type: 'filter',
      sheet: '1',
      posX: 10,
      posY: 20,
      process: 'next(0, incoming[0].data);',
      data: { top: 3 },
    });
    expect(node._key.startsWith(GENERATED_KEY_PREFIX)).toBe(true);
    expect(node.handles).toEqual(filterConfig?.node?.handles);
    expect(result.sheetId).toBe('1');
  });

  it('keeps the model-chosen nodeKey and explicit handles, and omits what a built-in type does not define', () => {
    const handles = { L: { position: 'fix' as const, point: [{ id: 'L-0', type: 'in' as const, accept: 'any' }] } };
    const result = converter.convert(
      {
        type: 'create_node',
        payload: { nodeKey: 'my-return', typeKey: 'return', sheet: '0', posX: 0, posY: 0, handles },
        reason: 'end',
      },
      GRAPH,
      '0',
      'call_4',
    );
    expect(result.nodesToCreate[0]).toEqual({
      _key: 'my-return',
      graphKey: GRAPH,
      type: 'return',
      sheet: '0',
      posX: 0,
      posY: 0,
      handles,
    });
  });

  it('builds a full edge for create_edge on its own sheet', () => {
    const result = converter.convert(
      {
        type: 'create_edge',
        payload: {
          sourceKey: 'filter-active',
          sourceHandle: 'R-0',
          targetKey: 'sort-stats',
          targetHandle: 'L-0',
          sheet: '1',
          label: 'ok',
        },
        reason: 'connect',
      },
      GRAPH,
      '0',
      'call_5',
    );
    expect(result.edgesToCreate).toEqual([
      {
        _key: expect.stringMatching(/^ai_[0-9a-f]{16}$/),
        graphKey: GRAPH,
        sheet: '1',
        source: 'filter-active',
        sourceHandle: 'R-0',
        target: 'sort-stats',
        targetHandle: 'L-0',
        label: 'ok',
      },
    ]);
    expect(result.sheetId).toBe('1');
  });

  it('lists keys to delete for delete_node and delete_edge, on the default sheet', () => {
    const nodeResult = converter.convert(
      { type: 'delete_node', payload: { nodeKey: 'disconnected-note' }, reason: 'unused' },
      GRAPH,
      '1',
      'c',
    );
    const edgeResult = converter.convert(
      { type: 'delete_edge', payload: { edgeKey: 'e-1' }, reason: 'wrong' },
      GRAPH,
      '0',
      'c',
    );
    expect(nodeResult).toMatchObject({ nodeKeysToDelete: ['disconnected-note'], edgeKeysToDelete: [], sheetId: '1' });
    expect(edgeResult).toMatchObject({ edgeKeysToDelete: ['e-1'], nodeKeysToDelete: [], sheetId: '0' });
  });

  it('merges a batch recursively (nested batches included), in order, with distinct generated keys', () => {
    const batch: ProposedAction = {
      type: 'batch',
      reason: 'add a logging branch',
      payload: {
        actions: [
          {
            type: 'create_node',
            payload: { nodeKey: 'logger', typeKey: 'log-node', sheet: '0', posX: 1, posY: 2 },
            reason: 'a',
          },
          {
            type: 'batch',
            reason: 'wire it',
            payload: {
              actions: [
                {
                  type: 'create_edge',
                  payload: {
                    sourceKey: 'fetch-api',
                    sourceHandle: 'R-1',
                    targetKey: 'logger',
                    targetHandle: 'L-0',
                    sheet: '0',
                  },
                  reason: 'b',
                },
                { type: 'create_node', payload: { typeKey: 'transform', sheet: '0', posX: 5, posY: 6 }, reason: 'c' },
                { type: 'move_node', payload: { nodeKey: 'return', posX: 9, posY: 9 }, reason: 'd' },
              ],
            },
          },
          { type: 'delete_node', payload: { nodeKey: 'disconnected-note' }, reason: 'e' },
          { type: 'delete_node', payload: { nodeKey: 'disconnected-note' }, reason: 'duplicate' },
        ],
      },
    };
    const result = converter.convert(batch, GRAPH, '1', 'call_batch');
    expect(result.nodesToCreate.map((node) => node.type)).toEqual(['log-node', 'transform']);
    expect(result.nodesToCreate[0]._key).toBe('logger');
    expect(result.edgesToCreate).toHaveLength(1);
    expect(result.edgesToCreate[0]).toMatchObject({ source: 'fetch-api', target: 'logger' });
    expect(result.edgesToCreate[0]._key).not.toBe(result.nodesToCreate[1]._key);
    expect(result.instructions.map((instruction) => instruction.path[0])).toEqual(['posX', 'posY']);
    expect(result.nodeKeysToDelete).toEqual(['disconnected-note']);
    expect(result.sheetId).toBe('0');
  });

  it('is deterministic and pure: same inputs, same output; other seed, other keys; input untouched', () => {
    const action: ProposedAction = {
      type: 'create_node',
      payload: { typeKey: 'transform', sheet: '0', posX: 1, posY: 1, data: { nested: { list: [1, 2] } } },
      reason: 'x',
    };
    const snapshot = structuredClone(action);
    const first = converter.convert(action, GRAPH, '0', 'call_same');
    const second = new ActionConverter(nbaWorkflowDemo.nodeConfigs).convert(action, GRAPH, '0', 'call_same');
    const other = converter.convert(action, GRAPH, '0', 'call_other');
    expect(second).toEqual(first);
    expect(other.nodesToCreate[0]._key).not.toBe(first.nodesToCreate[0]._key);
    (first.nodesToCreate[0].data as { nested: { list: number[] } }).nested.list.push(3);
    expect(action).toEqual(snapshot);
  });

  it('uses the default sheet for an empty batch', () => {
    const result = converter.convert({ type: 'batch', payload: { actions: [] }, reason: 'nothing' }, GRAPH, '7', 'c');
    expect(result.sheetId).toBe('7');
    expect(result.instructions).toEqual([]);
  });
});
