import type { ApprovalInterrupt, GraphDocument, GraphEdge, GraphNode } from '../src/protocol';

/** Test data of the graph view's specs (client/playground/graph): a part of the demo graph, and a batch proposal on it. */

const GRAPH = 'nba-workflow';
const passThrough = {
  L: { position: 'fix' as const, point: [{ id: 'L-0', type: 'in' as const, accept: 'any' }] },
  R: { position: 'fix' as const, point: [{ id: 'R-0', type: 'out' as const, accept: 'any' }] },
};

export function node(
  key: string,
  sheet: string,
  posX: number,
  posY: number,
  extra: Partial<GraphNode> = {},
): GraphNode {
  return { _key: key, graphKey: GRAPH, type: 'filter', sheet, posX, posY, handles: passThrough, ...extra };
}

export function edge(
  key: string,
  source: string,
  sourceHandle: string,
  target: string,
  extra: Partial<GraphEdge> = {},
) {
  return { _key: key, graphKey: GRAPH, sheet: '0', source, sourceHandle, target, targetHandle: 'L-0', ...extra };
}

export function demoDocument(): GraphDocument {
  return {
    graph: {
      _key: GRAPH,
      workspace: 'default',
      name: 'NBA stats workflow',
      sheetsList: { '0': 'main', '1': 'data-processing' },
    },
    nodes: [
      node('root', '0', 300, 100, { type: 'starter', size: { width: 120, height: 60 } }),
      node('fetch-api', '0', 520, 100, {
        type: 'api-call',
        size: { width: 240, height: 140 },
        handles: {
          L: { position: 'fix', point: [{ id: 'L-0', type: 'in', accept: 'any' }] },
          R: {
            position: 'separate',
            point: [
              { id: 'R-0', type: 'out', accept: 'object', display: 'success' },
              { id: 'R-1', type: 'out', accept: 'error', display: 'error' },
            ],
          },
        },
      }),
      node('filter-active', '0', 820, 60, { size: { width: 220, height: 120 } }),
      node('error-handler', '0', 820, 260, { type: 'log-node' }),
      node('sort-stats', '1', 200, 100, { type: 'transform' }),
    ],
    edges: [
      edge('root-to-fetch-api', 'root', 'R-0', 'fetch-api'),
      edge('fetch-api-to-filter-active', 'fetch-api', 'R-0', 'filter-active', { label: 'success' }),
      edge('fetch-api-to-error-handler', 'fetch-api', 'R-1', 'error-handler', { label: 'error' }),
    ],
    nodeConfigs: [
      { _key: 'api-call', workspace: 'default', displayName: 'API Call' },
      { _key: 'log-node', workspace: 'default', displayName: 'Log Node', node: { handles: passThrough } },
    ],
  };
}

/**
 * A batch as the service previews it: a new log node and its edge, a changed field, a move, a deleted node (its
 * edge goes with it), and a node created on the other sheet.
 */
export function batchInterrupt(): ApprovalInterrupt {
  const logErrors = node('log-errors', '0', 820, 420, { type: 'log-node', size: { width: 220, height: 100 } });
  const note = node('team-averages', '1', 500, 100, { type: 'transform' });
  const toLog = edge('fetch-api-to-log-errors', 'fetch-api', 'R-1', 'log-errors');
  return {
    kind: 'approval',
    toolCallId: 'call_batch',
    proposedAction: {
      type: 'batch',
      reason: 'Replace error-handler by a log node, raise the bar, tidy up',
      payload: {
        actions: [
          {
            type: 'create_node',
            payload: { nodeKey: 'log-errors', typeKey: 'log-node', sheet: '0', posX: 820, posY: 420 },
            reason: '',
          },
          {
            type: 'create_edge',
            payload: {
              edgeKey: toLog._key,
              sourceKey: 'fetch-api',
              sourceHandle: 'R-1',
              targetKey: 'log-errors',
              targetHandle: 'L-0',
              sheet: '0',
            },
            reason: '',
          },
          { type: 'update_node', payload: { nodeKey: 'filter-active', changes: { 'data.minGames': 20 } }, reason: '' },
          { type: 'move_node', payload: { nodeKey: 'root', posX: 300, posY: 300 }, reason: '' },
          { type: 'delete_node', payload: { nodeKey: 'error-handler' }, reason: '' },
          {
            type: 'create_node',
            payload: { nodeKey: 'team-averages', typeKey: 'transform', sheet: '1', posX: 500, posY: 100 },
            reason: '',
          },
        ],
      },
    },
    preview: {
      sheetId: '0',
      nodesToCreate: [logErrors, note],
      edgesToCreate: [toLog],
      instructions: [
        { nodeKey: 'filter-active', op: 'set', path: ['data', 'minGames'], value: 20, triggerHtmlRender: true },
        { nodeKey: 'root', op: 'set', path: ['posX'], value: 300, animatePos: true },
        { nodeKey: 'root', op: 'set', path: ['posY'], value: 300, animatePos: true },
      ],
      nodeKeysToDelete: ['error-handler'],
      edgeKeysToDelete: [],
      basis: { graphRevision: '7', nodes: {}, edges: {} },
      items: [
        { itemId: 'i1', type: 'create_node', description: 'New log-node node "log-errors"' },
        { itemId: 'i2', type: 'create_edge', description: 'New edge fetch-api:R-1 → log-errors:L-0' },
        { itemId: 'i3', type: 'update_node', description: 'Node "filter-active": data.minGames changed' },
        { itemId: 'i4', type: 'move_node', description: 'Node "root" moves to (300, 300)' },
        { itemId: 'i5', type: 'delete_node', description: 'Node "error-handler" is deleted, with its edges' },
        { itemId: 'i6', type: 'create_node', description: 'New transform node "team-averages"' },
      ],
    },
  };
}
