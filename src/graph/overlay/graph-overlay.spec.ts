import { AppError } from '../../errors/app-error';
import { GraphEdge, GraphNode } from '../graph.types';
import { GraphOverlay } from './graph-overlay';
import { LiveGraphChanges } from './live-graph-changes';

const node = (key: string, extra: Partial<GraphNode> = {}): GraphNode => ({
  _key: key,
  graphKey: 'g',
  type: 'filter',
  sheet: '0',
  posX: 0,
  posY: 0,
  ...extra,
});
const edge = (key: string, source: string, target: string): GraphEdge => ({
  _key: key,
  graphKey: 'g',
  sheet: '0',
  source,
  sourceHandle: 'R-0',
  target,
  targetHandle: 'L-0',
});
const changes = (partial: Partial<LiveGraphChanges>): LiveGraphChanges => ({
  upsertNodes: [],
  deleteNodes: [],
  upsertEdges: [],
  deleteEdges: [],
  ...partial,
});

describe(GraphOverlay.name, () => {
  it('keeps the latest state of each key: an upsert after a delete revives it, a delete after an upsert hides it', () => {
    const overlay = new GraphOverlay(0);
    overlay.apply(
      changes({
        upsertNodes: [node('a')],
        deleteNodes: ['b'],
        upsertEdges: [edge('e1', 'a', 'c')],
        deleteEdges: ['e2'],
      }),
      1,
    );
    overlay.apply(
      changes({
        upsertNodes: [node('b')],
        deleteNodes: ['a'],
        upsertEdges: [edge('e2', 'b', 'c')],
        deleteEdges: ['e1'],
      }),
      2,
    );

    expect([...overlay.nodes.keys()]).toEqual(['b']);
    expect([...overlay.deletedNodes]).toEqual(['a']);
    expect([...overlay.edges.keys()]).toEqual(['e2']);
    expect([...overlay.deletedEdges]).toEqual(['e1']);
    expect(overlay.entryCount).toBe(4);
    expect(overlay.version).toBe(2);
    expect(overlay.touchedAt).toBe(2);
  });

  it('refuses a key both upserted and deleted in one change, and applies nothing', () => {
    const overlay = new GraphOverlay(0);
    expect(() => overlay.apply(changes({ upsertNodes: [node('a')], deleteNodes: ['a'] }), 1)).toThrow(AppError);
    expect(() => overlay.apply(changes({ upsertEdges: [edge('e', 'a', 'b')], deleteEdges: ['e'] }), 1)).toThrow(
      /both upserted and deleted/,
    );
    expect(overlay.isEmpty).toBe(true);
    expect(overlay.version).toBe(0);
  });

  it('hides edges it deleted and edges of nodes it deleted', () => {
    const overlay = new GraphOverlay(0);
    overlay.apply(changes({ deleteNodes: ['gone'], deleteEdges: ['cut'] }), 1);
    expect(overlay.isEdgeVisible(edge('cut', 'a', 'b'))).toBe(false);
    expect(overlay.isEdgeVisible(edge('x', 'gone', 'b'))).toBe(false);
    expect(overlay.isEdgeVisible(edge('y', 'a', 'gone'))).toBe(false);
    expect(overlay.isEdgeVisible(edge('z', 'a', 'b'))).toBe(true);
  });

  it('forgets saved keys and says whether structure or nodes still differ from the store', () => {
    const overlay = new GraphOverlay(0);
    overlay.apply(changes({ upsertNodes: [node('a')], upsertEdges: [edge('e', 'a', 'b')] }), 1);
    expect(overlay.changesStructure).toBe(true);
    overlay.forget([], ['e']);
    expect(overlay.changesStructure).toBe(false);
    expect(overlay.changesNodes).toBe(true);
    const version = overlay.version;
    overlay.forget(['unknown'], []);
    expect(overlay.version).toBe(version);
    overlay.forget(['a'], []);
    expect(overlay.isEmpty).toBe(true);
  });

  it('counts the entries a change would add without applying it', () => {
    const overlay = new GraphOverlay(0);
    overlay.apply(changes({ upsertNodes: [node('a')], deleteEdges: ['e'] }), 1);
    expect(
      overlay.entryCountAfter(
        changes({ upsertNodes: [node('a'), node('b')], deleteNodes: ['c'], upsertEdges: [edge('e', 'a', 'b')] }),
      ),
    ).toBe(4);
    expect(overlay.entryCount).toBe(2);
  });

  it('stores frozen documents so no reader can change the live state', () => {
    const overlay = new GraphOverlay(0);
    overlay.apply(changes({ upsertNodes: [node('a', { data: { nested: { value: 1 } } })] }), 1);
    const stored = overlay.nodes.get('a') as GraphNode;
    expect(Object.isFrozen(stored)).toBe(true);
    expect(Object.isFrozen((stored.data as { nested: object }).nested)).toBe(true);
  });
});
