import { ScoredNode } from '../graph-data-source';
import { GraphNode } from '../graph.types';
import { GraphOverlay } from './graph-overlay';
import { changedNodesOf, searchPastHidden } from './overlay-changed-nodes';

const node = (key: string, extra: Partial<GraphNode> = {}): GraphNode => ({
  _key: key,
  graphKey: 'g',
  type: 'filter',
  sheet: '0',
  posX: 0,
  posY: 0,
  ...extra,
});
const hits = (count: number): ScoredNode[] =>
  Array.from({ length: count }, (_, index) => ({ node: node(`n${index}`), score: count - index }));

describe(changedNodesOf.name, () => {
  it('tells new and changed upserts from moved ones, counts what the store must hide, and reads the store once per version', async () => {
    const stored = [node('moved'), node('edited', { process: 'old()' })];
    const getNodesByKeys = jest.fn(async (_graphKey: string, keys: string[]) =>
      stored.filter((candidate) => keys.includes(candidate._key)),
    );
    const overlay = new GraphOverlay(0);
    overlay.apply(
      {
        upsertNodes: [node('moved', { posX: 9 }), node('edited', { process: 'new()' }), node('created')],
        deleteNodes: ['gone'],
        upsertEdges: [],
        deleteEdges: [],
      },
      1,
    );

    const changes = await changedNodesOf({ getNodesByKeys }, overlay, 'g');
    expect([...changes.changed].sort()).toEqual(['created', 'edited']);
    expect(changes.hiddenInStore).toBe(2);
    await changedNodesOf({ getNodesByKeys }, overlay, 'g');
    expect(getNodesByKeys).toHaveBeenCalledTimes(1);
    overlay.forget(['edited'], []);
    expect((await changedNodesOf({ getNodesByKeys }, overlay, 'g')).changed).toEqual(new Set(['created']));
    expect(getNodesByKeys).toHaveBeenCalledTimes(2);
  });
});

describe(searchPastHidden.name, () => {
  it('asks for maxResults plus at most maxResults more when enough stay visible', async () => {
    const search = jest.fn(async (limit: number) => hits(limit));
    await searchPastHidden(500, 10, search, (found) => found.length - 3);
    expect(search.mock.calls).toEqual([[20]]);
  });

  it('asks again with room for every hidden node when the first page left too few', async () => {
    const search = jest.fn(async (limit: number) => hits(limit));
    const found = await searchPastHidden(50, 10, search, (page) => (page.length > 20 ? page.length - 50 : 2));
    expect(search.mock.calls).toEqual([[20], [60]]);
    expect(found).toHaveLength(60);
  });

  it('does not ask again when the store had no more hits or nothing more can be hidden', async () => {
    const short = jest.fn(async () => hits(12));
    await searchPastHidden(50, 10, short, () => 2);
    expect(short).toHaveBeenCalledTimes(1);
    const few = jest.fn(async (limit: number) => hits(limit));
    await searchPastHidden(5, 10, few, () => 2);
    expect(few.mock.calls).toEqual([[15]]);
  });
});
