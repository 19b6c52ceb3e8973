import { TopKCollector } from './top-k.collector';

describe(TopKCollector.name, () => {
  it('keeps the best scores, best first', () => {
    const collector = new TopKCollector(3);
    [5, 1, 9, 3, 7, 2].forEach((score, item) => collector.offer(item, score));
    expect(collector.result()).toEqual([
      { item: 2, score: 9 },
      { item: 4, score: 7 },
      { item: 0, score: 5 },
    ]);
  });

  it('breaks ties by ascending item whatever the offer order', () => {
    const collector = new TopKCollector(2);
    for (const item of [4, 1, 3, 0, 2]) collector.offer(item, 1);
    expect(collector.result().map((entry) => entry.item)).toEqual([0, 1]);
  });

  it('breaks ties by the given tie ranks instead, when there are some', () => {
    const collector = new TopKCollector(2, [50, 10, 40, 30]);
    for (const item of [0, 1, 2, 3]) collector.offer(item, 1);
    expect(collector.result().map((entry) => entry.item)).toEqual([1, 3]);
  });

  it('agrees with a full sort on random input', () => {
    const scores = Array.from({ length: 500 }, (_, index) => Math.round(Math.sin(index * 12.9898) * 1000) / 10);
    const collector = new TopKCollector(17);
    scores.forEach((score, item) => collector.offer(item, score));
    const expected = scores
      .map((score, item) => ({ item, score }))
      .sort((a, b) => b.score - a.score || a.item - b.item)
      .slice(0, 17);
    expect(collector.result()).toEqual(expected);
  });

  it('exposes the admission threshold once full, and keeps nothing with limit 0', () => {
    const collector = new TopKCollector(2);
    expect(collector.threshold).toBe(-Infinity);
    collector.offer(0, 3);
    collector.offer(1, 5);
    expect(collector.threshold).toBe(3);
    const none = new TopKCollector(0);
    none.offer(0, 1);
    expect(none.result()).toEqual([]);
  });
});
