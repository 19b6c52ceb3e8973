import { GraphNode } from '../graph/graph.types';
import { selectContextNodes } from './context-node.selector';

const node = (key: string): GraphNode => ({ _key: key, graphKey: 'g', type: 'filter', sheet: '0', posX: 0, posY: 0 });
const hit = (key: string, score = 1) => ({ node: node(key), score });
const picked = (result: ReturnType<typeof selectContextNodes>) =>
  result.map((entry) => `${entry.origin}:${entry.node._key}`);

describe(selectContextNodes.name, () => {
  it('ranks mentions, then hits best first, then neighbours nearest first', () => {
    const result = selectContextNodes({
      mentions: [node('m1')],
      hits: [hit('h1', 0.9), hit('h2', 0.5)],
      neighbors: [node('n1'), node('n2')],
      maxNodes: 10,
      neighborSlots: 2,
    });
    expect(picked(result)).toEqual(['mention:m1', 'search:h1', 'search:h2', 'neighbor:n1', 'neighbor:n2']);
    expect(result[1].score).toBe(0.9);
  });

  it('keeps slots for neighbours when hits alone would fill the context', () => {
    const hits = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((key) => hit(key));
    const result = selectContextNodes({
      mentions: [],
      hits,
      neighbors: [node('n1'), node('n2'), node('n3')],
      maxNodes: 5,
      neighborSlots: 2,
    });
    expect(picked(result)).toEqual(['search:h1', 'search:h2', 'search:h3', 'neighbor:n1', 'neighbor:n2']);
  });

  it('gives unused neighbour slots back to the next hits, still ranked before the neighbours', () => {
    const hits = ['h1', 'h2', 'h3', 'h4', 'h5'].map((key) => hit(key));
    const result = selectContextNodes({ mentions: [], hits, neighbors: [node('n1')], maxNodes: 4, neighborSlots: 2 });
    expect(picked(result)).toEqual(['search:h1', 'search:h2', 'search:h3', 'neighbor:n1']);
  });

  it('counts a neighbour that is also a hit as a hit, without reserving a slot for it', () => {
    const hits = ['h1', 'h2', 'h3', 'h4'].map((key) => hit(key));
    const result = selectContextNodes({
      mentions: [],
      hits,
      neighbors: [node('h4'), node('n1')],
      maxNodes: 3,
      neighborSlots: 2,
    });
    expect(picked(result)).toEqual(['search:h1', 'search:h4', 'neighbor:n1']);
  });

  it('reserves nothing with zero slots: hits first, neighbours only in what is left', () => {
    const hits = ['h1', 'h2', 'h3'].map((key) => hit(key));
    expect(
      picked(selectContextNodes({ mentions: [], hits, neighbors: [node('n1')], maxNodes: 3, neighborSlots: 0 })),
    ).toEqual(['search:h1', 'search:h2', 'search:h3']);
    expect(
      picked(selectContextNodes({ mentions: [], hits, neighbors: [node('n1')], maxNodes: 4, neighborSlots: 0 })),
    ).toEqual(['search:h1', 'search:h2', 'search:h3', 'neighbor:n1']);
  });

  it('ranks the two nearest neighbours right after the 8th hit, the other hits and neighbours after them', () => {
    const hits = Array.from({ length: 12 }, (_, index) => hit(`h${index + 1}`, 1 - index / 20));
    const result = selectContextNodes({
      mentions: [],
      hits,
      neighbors: [node('n1'), node('n2'), node('n3')],
      maxNodes: 14,
      neighborSlots: 3,
    });
    expect(picked(result)).toEqual([
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7', 'h8'].map((key) => `search:${key}`),
      'neighbor:n1',
      'neighbor:n2',
      ...['h9', 'h10', 'h11'].map((key) => `search:${key}`),
      'neighbor:n3',
    ]);
  });

  it('never exceeds maxNodes, never repeats a node, and lets mentions take precedence', () => {
    const result = selectContextNodes({
      mentions: [node('a'), node('a'), node('b'), node('c')],
      hits: [hit('b'), hit('d')],
      neighbors: [node('a'), node('e')],
      maxNodes: 2,
      neighborSlots: 1,
    });
    expect(picked(result)).toEqual(['mention:a', 'mention:b']);
  });
});
