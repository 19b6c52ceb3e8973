import { fuseByReciprocalRank, RRF_K } from './reciprocal-rank-fusion';

const id = (value: string) => value;

describe(fuseByReciprocalRank.name, () => {
  it('scores each item 1/(k+rank) per list and sums across lists', () => {
    const fused = fuseByReciprocalRank([['a', 'b'], ['b', 'c']], id);
    expect(fused.map((entry) => entry.item)).toEqual(['b', 'a', 'c']);
    expect(fused[0].score).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 1));
    expect(fused[1].score).toBeCloseTo(1 / (RRF_K + 1));
  });

  it('ranks an item found by both lists above items found by one', () => {
    const lexical = ['x1', 'x2', 'x3', 'shared'];
    const semantic = ['y1', 'shared', 'y2'];
    expect(fuseByReciprocalRank([lexical, semantic], id)[0].item).toBe('shared');
  });

  it('breaks ties by best rank, then list order', () => {
    expect(fuseByReciprocalRank([['a', 'b'], ['c', 'd']], id).map((entry) => entry.item)).toEqual(['a', 'c', 'b', 'd']);
  });

  it('keeps the first occurrence of an item and handles empty lists', () => {
    const first = { key: 'n', from: 'lexical' };
    const second = { key: 'n', from: 'vector' };
    expect(fuseByReciprocalRank([[first], [second]], (item) => item.key)[0].item).toBe(first);
    expect(fuseByReciprocalRank([[], []], id)).toEqual([]);
  });

  it('uses the given k', () => {
    expect(fuseByReciprocalRank([['a']], id, 0)[0].score).toBe(1);
  });
});
