import { truncateToTokenLimit } from './embedding-input.truncator';

describe(truncateToTokenLimit.name, () => {
  // Loads the cl100k ranks once, outside any test's time budget (seconds on a busy machine).
  beforeAll(() => truncateToTokenLimit('é'.repeat(20), 10), 120_000);

  it('leaves texts within the limit untouched', () => {
    expect(truncateToTokenLimit('fetch the players', 8191)).toBe('fetch the players');
    const longButFew = 'word '.repeat(2000);
    expect(truncateToTokenLimit(longButFew, 8191)).toBe(longButFew);
  });

  it('cuts longer texts to the token limit, at a character boundary', () => {
    const text = '数据处理节点 '.repeat(400) + '😀'.repeat(300);
    const cut = truncateToTokenLimit(text, 500);
    expect(cut.length).toBeLessThan(text.length);
    expect(text.startsWith(cut)).toBe(true);
    expect(cut).not.toContain('\uFFFD');
    expect(truncateToTokenLimit(cut, 500)).toBe(cut);
  });
});
