import { ScoredNode } from '../graph/graph-data-source';
import { GraphNode } from '../graph/graph.types';
import { fuseByScore } from './score-fusion';

const node = (key: string): GraphNode => ({ _key: key, graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0 });
const hits = (...entries: Array<[string, number]>): ScoredNode[] =>
  entries.map(([key, score]) => ({ node: node(key), score }));
const fused = (lists: Parameters<typeof fuseByScore>[0]) =>
  fuseByScore(lists).map((hit) => [hit.node._key, Number(hit.score.toFixed(4))]);

describe(fuseByScore.name, () => {
  it('divides each list by its best score, weights it and sums per node', () => {
    const lexical = hits(['a', 12], ['b', 6], ['c', 3]);
    const vector = hits(['c', 0.8], ['d', 0.4]);
    expect(
      fused([
        { hits: lexical, weight: 1 },
        { hits: vector, weight: 0.5 },
      ]),
    ).toEqual([
      ['a', 1],
      ['c', 0.75],
      ['b', 0.5],
      ['d', 0.25],
    ]);
  });

  it('keeps a clear lexical winner first where rank fusion would not', () => {
    // BM25 finds one node by far; the vector list ranks a string of near-equal cosines.
    const lexical = hits(['exact', 20], ['weak', 2]);
    const vector = hits(['near1', 0.41], ['weak', 0.4], ['near2', 0.39]);
    expect(
      fuseByScore([
        { hits: lexical, weight: 1 },
        { hits: vector, weight: 0.5 },
      ])[0].node._key,
    ).toBe('exact');
  });

  it('keeps the order of first meeting on ties, and ignores empty lists, zero weights and non-positive bests', () => {
    expect(
      fused([
        { hits: hits(['a', 1], ['b', 1]), weight: 1 },
        { hits: hits(['c', 2]), weight: 0.5 },
      ]),
    ).toEqual([
      ['a', 1],
      ['b', 1],
      ['c', 0.5],
    ]);
    expect(
      fused([
        { hits: [], weight: 1 },
        { hits: hits(['a', 1]), weight: 0 },
        { hits: hits(['b', 0]), weight: 1 },
      ]),
    ).toEqual([]);
  });
});
