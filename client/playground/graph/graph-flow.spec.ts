import { readdirSync } from 'node:fs';
import {
  describeWithSharedFixtures,
  loadWorkflowFixture,
  sharedFixturePath,
} from '../../../test/support/shared-fixtures';
import { batchInterrupt, demoDocument, edge, node } from '../../test/graph-view.fixtures';
import { autoLayout } from './auto-layout';
import {
  handlesOf,
  movedGhostId,
  needsLayout,
  proposalCounts,
  sheetFlow,
  type WorkflowFlowEdge,
  type WorkflowFlowNode,
} from './graph-flow';
import { highlightProposal } from './proposal-highlight';

const byId = <T extends { id: string }>(items: T[], id: string): T => {
  const found = items.find((item) => item.id === id);
  if (!found) throw new Error(`no ${id} among ${items.map((item) => item.id).join(', ')}`);
  return found;
};

describe(sheetFlow.name, () => {
  it('draws a sheet: its nodes at their stored positions and sizes, its edges between their handles, nothing of the other sheet', () => {
    const { nodes, edges } = sheetFlow(demoDocument(), '0');
    expect(nodes.map((flowNode) => flowNode.id)).toEqual(['root', 'fetch-api', 'filter-active', 'error-handler']);
    expect(byId(nodes, 'fetch-api')).toMatchObject({
      type: 'workflow',
      position: { x: 520, y: 100 },
      width: 240,
      height: 140,
      className: 'pg-node',
      ariaLabel: 'Node fetch-api (API Call)',
      data: { nodeKey: 'fetch-api', typeLabel: 'API Call' },
    });
    // No size: its type's, else the default.
    expect(byId(nodes, 'error-handler')).toMatchObject({ width: 180, height: 64, data: { typeLabel: 'Log Node' } });
    expect(byId(edges, 'fetch-api-to-error-handler')).toEqual({
      id: 'fetch-api-to-error-handler',
      source: 'fetch-api',
      sourceHandle: 'R-1',
      target: 'error-handler',
      targetHandle: 'L-0',
      label: 'error',
      className: 'pg-edge',
      markerEnd: 'pg-arrow',
      ariaLabel: 'Edge fetch-api → error-handler "error"',
      data: {},
    });
    expect(sheetFlow(demoDocument(), '1').nodes.map((flowNode) => flowNode.id)).toEqual(['sort-stats']);
  });

  it('lays a proposal over the sheet: ghosts for what it creates, marks on what it changes, moves and deletes', () => {
    const document = demoDocument();
    const { nodes, edges } = sheetFlow(document, '0', { highlight: highlightProposal(batchInterrupt()) });

    const ghost = byId(nodes, 'log-errors');
    expect(ghost).toMatchObject({
      position: { x: 820, y: 420 },
      className: 'pg-node pg-node--added pg-node--ghost',
      data: { ghost: 'created', mark: { highlight: 'added' }, typeLabel: 'Log Node' },
    });
    expect(ghost.ariaLabel).toBe('Proposed node log-errors (Log Node). New: New log-node node "log-errors"');
    expect(ghost.data.handles.map((handle) => `${handle.kind}:${handle.id}`)).toEqual(['target:L-0', 'source:R-0']);

    expect(byId(nodes, 'filter-active')).toMatchObject({
      className: 'pg-node pg-node--changed',
      ariaLabel: 'Node filter-active (filter). Changed: Node "filter-active": data.minGames changed',
    });
    expect(byId(nodes, 'error-handler').className).toBe('pg-node pg-node--deleted');

    // The moved node stays highlighted where it is, and a ghost without handles shows where it would go.
    expect(byId(nodes, 'root')).toMatchObject({ position: { x: 300, y: 100 }, className: 'pg-node pg-node--changed' });
    expect(byId(nodes, movedGhostId('root'))).toMatchObject({
      position: { x: 300, y: 300 },
      className: 'pg-node pg-node--changed pg-node--ghost',
      ariaLabel: 'Proposed position of node root. Moved: Node "root" moves to (300, 300)',
      data: { ghost: 'moved', handles: [] },
    });

    expect(byId(edges, 'fetch-api-to-log-errors')).toMatchObject({
      className: 'pg-edge pg-edge--added',
      markerEnd: 'pg-arrow-added',
      sourceHandle: 'R-1',
    });
    // The edge of the deleted node goes with it.
    expect(byId(edges, 'fetch-api-to-error-handler')).toMatchObject({
      className: 'pg-edge pg-edge--deleted',
      markerEnd: 'pg-arrow-deleted',
      ariaLabel:
        'Edge fetch-api → error-handler "error". Deleted: Edge "fetch-api-to-error-handler" is deleted with node "error-handler"',
    });
    expect(byId(edges, 'root-to-fetch-api').className).toBe('pg-edge');
    // The node created on the other sheet is not drawn here, but there.
    expect(nodes.some((flowNode) => flowNode.id === 'team-averages')).toBe(false);
    const other = sheetFlow(document, '1', { highlight: highlightProposal(batchInterrupt()) });
    expect(byId(other.nodes, 'team-averages').className).toBe('pg-node pg-node--added pg-node--ghost');
  });

  it('shows a decision on an item once the reviewer made one, and passes it to the edges of a deleted node', () => {
    const highlight = highlightProposal(batchInterrupt());
    highlight.nodes.get('error-handler')!.decision = 'declined';
    highlight.createdNodes.get('log-errors')!.mark.decision = 'accepted';
    const { nodes, edges } = sheetFlow(demoDocument(), '0', { highlight });
    expect(byId(nodes, 'error-handler').className).toBe('pg-node pg-node--deleted pg-node--declined');
    expect(byId(nodes, 'error-handler').ariaLabel).toContain('Deleted · declined:');
    expect(byId(nodes, 'log-errors').className).toBe('pg-node pg-node--added pg-node--ghost pg-node--accepted');
    expect(byId(edges, 'fetch-api-to-error-handler').className).toBe('pg-edge pg-edge--deleted pg-edge--declined');
  });

  it('outlines what changed since the proposal was made, and says so', () => {
    const highlight = highlightProposal(batchInterrupt());
    const changedSince = { nodes: new Set(['filter-active', 'sort-stats']), edges: new Set(['root-to-fetch-api']) };
    const { nodes, edges } = sheetFlow(demoDocument(), '0', { highlight, changedSince });
    expect(byId(nodes, 'filter-active').className).toBe('pg-node pg-node--changed pg-node--stale');
    expect(byId(nodes, 'filter-active').ariaLabel).toMatch(/Changed since the proposal was made$/);
    expect(byId(nodes, 'filter-active').data.changedSince).toBe(true);
    expect(byId(nodes, 'fetch-api').className).toBe('pg-node');
    expect(byId(edges, 'root-to-fetch-api').className).toBe('pg-edge pg-edge--stale');
  });

  it('leaves out an edge whose other end is not drawn on the sheet', () => {
    const document = demoDocument();
    document.edges.push(edge('to-nowhere', 'root', 'R-0', 'sort-stats'));
    expect(sheetFlow(document, '0').edges.map((flowEdge) => flowEdge.id)).not.toContain('to-nowhere');
  });

  it('lays a sheet out automatically when its positions are missing or all on one point, left to right along the edges', () => {
    const document = demoDocument();
    for (const graphNode of document.nodes) {
      graphNode.posX = 0;
      graphNode.posY = 0;
    }
    const layout = jest.fn(autoLayout);
    const { nodes } = sheetFlow(document, '0', { highlight: highlightProposal(batchInterrupt()), layout });
    expect(layout).toHaveBeenCalledTimes(1);
    const x = (id: string) => byId(nodes, id).position.x;
    expect(x('root')).toBeLessThan(x('fetch-api'));
    expect(x('fetch-api')).toBeLessThan(x('filter-active'));
    expect(x('fetch-api')).toBeLessThan(x('log-errors'));
    const corners = new Set(nodes.map((flowNode) => `${flowNode.position.x},${flowNode.position.y}`));
    expect(corners.size).toBe(nodes.length);
    // The proposal's coordinates mean nothing on a sheet laid out here: no ghost of the move.
    expect(nodes.some((flowNode) => flowNode.id === movedGhostId('root'))).toBe(false);

    // Stored positions are used as they are.
    const placed = jest.fn(autoLayout);
    sheetFlow(demoDocument(), '0', { layout: placed });
    expect(placed).not.toHaveBeenCalled();
  });
});

describe(needsLayout.name, () => {
  it('asks for a layout when a position is missing or every node sits on one point', () => {
    const missing = { ...node('a', '0', 0, 0), posX: undefined } as unknown as ReturnType<typeof node>;
    expect(needsLayout([node('a', '0', 10, 20), missing])).toBe(true);
    expect(needsLayout([node('a', '0', 5, 5), node('b', '0', 5, 5)])).toBe(true);
    expect(needsLayout([node('a', '0', 5, 5), node('b', '0', 200, 5)])).toBe(false);
    expect(needsLayout([node('a', '0', 0, 0)])).toBe(false);
    expect(needsLayout([])).toBe(false);
  });
});

describe(handlesOf.name, () => {
  it("spreads a side's handles evenly, keeps their display names, and adds the ones edges use without declaring them", () => {
    const document = demoDocument();
    const fetchApi = document.nodes.find((graphNode) => graphNode._key === 'fetch-api')!;
    expect(handlesOf(fetchApi, undefined, [])).toEqual([
      { id: 'L-0', kind: 'target', side: 'left', offset: 50 },
      { id: 'R-0', kind: 'source', side: 'right', offset: 33, label: 'success' },
      { id: 'R-1', kind: 'source', side: 'right', offset: 67, label: 'error' },
    ]);
    const bare = node('bare', '0', 0, 0, { handles: undefined, type: 'unknown' });
    expect(
      handlesOf(bare, undefined, [
        edge('a', 'bare', 'D-2', 'x'),
        edge('b', 'x', 'R-0', 'bare', { targetHandle: 'T-0' }),
        edge('c', 'bare', '', 'y'),
        edge('d', 'y', 'R-0', 'bare', { targetHandle: '7' }),
      ]),
    ).toEqual([
      { id: 'D-2', kind: 'source', side: 'bottom', offset: 50 },
      { id: 'T-0', kind: 'target', side: 'top', offset: 50 },
      { id: null, kind: 'source', side: 'right', offset: 50 },
      { id: '7', kind: 'target', side: 'left', offset: 50 },
    ]);
    // Side "0" has no side: inputs left, outputs right; a type's handles stand in for a node without its own.
    const typed = node('typed', '0', 0, 0, { handles: undefined, type: 'log-node' });
    expect(
      handlesOf(
        typed,
        {
          _key: 'log-node',
          workspace: 'w',
          displayName: 'Log',
          node: {
            handles: {
              '0': {
                position: 'fix',
                point: [
                  { id: 'i', type: 'in', accept: 'any' },
                  { id: 'o', type: 'out', accept: 'any' },
                ],
              },
            },
          },
        },
        [],
      ),
    ).toEqual([
      { id: 'i', kind: 'target', side: 'left', offset: 50 },
      { id: 'o', kind: 'source', side: 'right', offset: 50 },
    ]);
  });
});

describe(proposalCounts.name, () => {
  it('counts the highlighted elements by highlight and by sheet, the edges that go with a deleted node included', () => {
    const { byHighlight, bySheet } = proposalCounts(demoDocument(), highlightProposal(batchInterrupt()));
    expect(byHighlight).toEqual({ added: 3, changed: 2, deleted: 2 });
    expect(Object.fromEntries(bySheet)).toEqual({ '0': 6, '1': 1 });
    expect(proposalCounts(demoDocument(), null).bySheet.size).toBe(0);
  });
});

describeWithSharedFixtures('sheetFlow on real workflows', () => {
  it('draws every node of every sheet, and every edge between handles its nodes have', () => {
    const files = readdirSync(sharedFixturePath('workflows', 'graphs')).filter((file) => file.endsWith('.json'));
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) {
      const document = loadWorkflowFixture(file);
      let drawnNodes = 0;
      let drawnEdges = 0;
      for (const sheetId of Object.keys(document.graph.sheetsList)) {
        const { nodes, edges } = sheetFlow(document, sheetId, { layout: autoLayout });
        drawnNodes += nodes.length;
        drawnEdges += edges.length;
        const nodesById = new Map<string, WorkflowFlowNode>(nodes.map((flowNode) => [flowNode.id, flowNode]));
        const hasHandle = (flowEdge: WorkflowFlowEdge, end: 'source' | 'target') =>
          nodesById
            .get(flowEdge[end])!
            .data.handles.some(
              (handle) =>
                handle.kind === end && handle.id === (end === 'source' ? flowEdge.sourceHandle : flowEdge.targetHandle),
            );
        for (const flowEdge of edges) {
          expect([file, flowEdge.id, hasHandle(flowEdge, 'source'), hasHandle(flowEdge, 'target')]).toEqual([
            file,
            flowEdge.id,
            true,
            true,
          ]);
        }
        for (const flowNode of nodes) expect(Number.isFinite(flowNode.position.x + flowNode.position.y)).toBe(true);
      }
      expect([file, drawnNodes, drawnEdges]).toEqual([file, document.nodes.length, document.edges.length]);
    }
  });
});
