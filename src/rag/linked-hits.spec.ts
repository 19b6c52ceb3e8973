import { NodeNeighborhood, ScoredNode } from '../graph/graph-data-source';
import { GraphEdge, GraphNode } from '../graph/graph.types';
import { hitsLinkedToSeeds } from './linked-hits';

const node = (key: string): GraphNode => ({ _key: key, graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0 });
const edge = (source: string, target: string): GraphEdge => ({
  _key: `${source}-${target}`,
  graphKey: 'g',
  sheet: '0',
  source,
  sourceHandle: '0',
  target,
  targetHandle: '0',
});
const hit = (key: string, score: number): ScoredNode => ({ node: node(key), score });

describe(hitsLinkedToSeeds.name, () => {
  it('lists the hits one edge from each seed, by seed rank then hit rank, once each, in either direction', () => {
    const hits = [hit('a', 9), hit('b', 8), hit('c', 7), hit('d', 6), hit('e', 5)];
    // a → e, d → a (a's neighbours, e and d); b → c; c is two hops from a.
    const aHood: NodeNeighborhood = { nodes: ['a', 'e', 'd', 'x'].map(node), edges: [edge('a', 'e'), edge('d', 'a'), edge('e', 'x')] };
    const bHood: NodeNeighborhood = { nodes: ['b', 'c', 'd'].map(node), edges: [edge('b', 'c'), edge('c', 'd')] };
    const linked = hitsLinkedToSeeds(hits, ['a', 'b'], [aHood, bHood]).map((entry) => entry.node._key);
    // x is a neighbour but no hit; d is two hops from b and already listed under a.
    expect(linked).toEqual(['d', 'e', 'c']);
  });

  it('is empty without neighbourhoods (no expansion)', () => {
    expect(hitsLinkedToSeeds([hit('a', 1)], ['a'], [])).toEqual([]);
  });
});
