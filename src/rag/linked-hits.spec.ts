import { NodeNeighborhood, ScoredNode } from '../graph/graph-data-source';
import { plainEdge, plainNode } from '../../test/support/plain-graph-parts';
import { boostHitsLinkedToSeeds } from './linked-hits';

const node = plainNode;
const edge = plainEdge;
const hit = (key: string, score: number): ScoredNode => ({ node: node(key), score });
const scores = (hits: ScoredNode[]) => hits.map((entry) => [entry.node._key, Number(entry.score.toFixed(3))]);

describe(boostHitsLinkedToSeeds.name, () => {
  // a → e, d → a (a's neighbours, e and d); b → c; c is two hops from a; x is a neighbour but no hit.
  const aHood: NodeNeighborhood = {
    nodes: ['a', 'e', 'd', 'x'].map(node),
    edges: [edge('a', 'e'), edge('d', 'a'), edge('e', 'x')],
  };
  const bHood: NodeNeighborhood = { nodes: ['b', 'c', 'd'].map(node), edges: [edge('b', 'c'), edge('c', 'd')] };

  it('gives each hit one edge from a seed, in either direction, a share of that seed’s score, and re-sorts', () => {
    const hits = [hit('a', 1), hit('b', 0.8), hit('c', 0.3), hit('d', 0.25), hit('e', 0.2)];
    const boosted = boostHitsLinkedToSeeds(hits, ['a', 'b'], [aHood, bHood], 0.5);
    // d and e gain 0.5 × a's 1; c gains 0.5 × b's 0.8; c is two hops from a and gains nothing from it; x is no hit.
    expect(scores(boosted)).toEqual(
      [
        ['a', 1],
        ['b', 0.8],
        ['c', 0.7],
        ['d', 0.75],
        ['e', 0.7],
      ].sort((left, right) => (right[1] as number) - (left[1] as number)),
    );
  });

  it('adds once per neighbouring seed, so a hit between two good ones rises most', () => {
    const between: NodeNeighborhood = { nodes: ['s', 'm'].map(node), edges: [edge('s', 'm')] };
    const other: NodeNeighborhood = { nodes: ['t', 'm'].map(node), edges: [edge('m', 't')] };
    const hits = [hit('s', 1), hit('t', 1), hit('n', 0.5), hit('m', 0.2)];
    expect(scores(boostHitsLinkedToSeeds(hits, ['s', 't'], [between, other], 0.3))).toEqual([
      ['s', 1],
      ['t', 1],
      ['m', 0.8],
      ['n', 0.5],
    ]);
  });

  it('gives twice the share to the side the question asks about and none to the other', () => {
    // a → e (downstream of a), d → a (upstream of a).
    const hits = [hit('a', 1), hit('d', 0.2), hit('e', 0.1)];
    expect(scores(boostHitsLinkedToSeeds(hits, ['a'], [aHood], 0.3, 'downstream'))).toEqual([
      ['a', 1],
      ['e', 0.7],
      ['d', 0.2],
    ]);
    expect(scores(boostHitsLinkedToSeeds(hits, ['a'], [aHood], 0.3, 'upstream'))).toEqual([
      ['a', 1],
      ['d', 0.8],
      ['e', 0.1],
    ]);
  });

  it('changes nothing without neighbourhoods (no expansion) or with a zero share', () => {
    const hits = [hit('a', 1), hit('e', 0.1)];
    expect(scores(boostHitsLinkedToSeeds(hits, ['a'], [], 0.3))).toEqual([
      ['a', 1],
      ['e', 0.1],
    ]);
    expect(scores(boostHitsLinkedToSeeds(hits, ['a'], [aHood], 0))).toEqual(scores(hits));
  });
});
