import { summarizeData, truncate, TRUNCATION_MARKER } from './text-truncation';

describe(truncate.name, () => {
  it('keeps a text that fits', () => {
    expect(truncate('short', 10)).toBe('short');
    expect(truncate('exactly10!', 10)).toBe('exactly10!');
    expect(truncate('', 5)).toBe('');
  });

  it('cuts a longer text and marks the cut', () => {
    expect(truncate('abcdefghij', 4)).toBe(`abcd${TRUNCATION_MARKER}`);
    expect(truncate('x'.repeat(600), 500)).toHaveLength(500 + TRUNCATION_MARKER.length);
  });

  it('never splits a surrogate pair', () => {
    const cut = truncate('ab😀cd', 3);
    expect(cut).toBe(`ab${TRUNCATION_MARKER}`);
    expect(() => encodeURIComponent(cut)).not.toThrow();
  });
});

describe(summarizeData.name, () => {
  it('is empty when there is no data', () => {
    expect(summarizeData(undefined, 200)).toBe('');
    expect(summarizeData(null, 200)).toBe('');
  });

  it('serialises data as JSON and truncates it', () => {
    expect(summarizeData({ minGames: 10 }, 200)).toBe('{"minGames":10}');
    expect(summarizeData({ note: 'x'.repeat(300) }, 200)).toMatch(/^\{"note":"x+\.\.\.$/);
    expect(summarizeData({ note: 'x'.repeat(300) }, 200)).toHaveLength(203);
    expect(summarizeData(0, 200)).toBe('0');
  });

  it('survives data that JSON cannot serialise', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(summarizeData(cyclic, 200)).toBe('[object Object]');
  });
});
