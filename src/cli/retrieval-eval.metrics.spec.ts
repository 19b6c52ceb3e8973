import { mean, recallAtK } from './retrieval-eval.metrics';

describe(recallAtK.name, () => {
  it('counts the relevant keys found in the first k', () => {
    expect(recallAtK(['a', 'b', 'c', 'd'], ['c', 'x'], 3)).toBe(0.5);
    expect(recallAtK(['a', 'b', 'c', 'd'], ['d'], 3)).toBe(0);
    expect(recallAtK([], ['a'], 10)).toBe(0);
    expect(recallAtK(['a'], [], 10)).toBe(0);
  });
});

describe(mean.name, () => {
  it('averages, 0 for nothing', () => {
    expect(mean([1, 0, 0.5])).toBe(0.5);
    expect(mean([])).toBe(0);
  });
});
