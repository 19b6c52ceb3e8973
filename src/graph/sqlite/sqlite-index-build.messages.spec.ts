import { runAllSteps } from '../search/stepwise';
import { restoringStringLists, StringList, tabulateStringLists } from './sqlite-index-build.messages';

describe('string lists crossing from the index build thread', () => {
  it('turn each long list of strings (or nulls) into one text and back, wherever it sits in plain objects', () => {
    const keys = Array.from({ length: 5_000 }, (_, index) => (index % 97 === 0 ? null : `nœud-${index}-é`));
    const value = {
      packed: { nodeKeys: keys, bm25: { terms: keys.filter((key): key is string => key !== null), k1: 1.2 } },
      short: ['a', 'b'],
      numbers: Array.from({ length: 300 }, (_, index) => index),
      rowIds: Float64Array.of(1, 2),
      none: null,
    };
    const tabulated = tabulateStringLists(value);
    const list = tabulated.packed.nodeKeys as unknown as StringList;
    expect(list.stringList).toBe(true);
    expect(list.nulls?.filter(Boolean)).toHaveLength(52);
    expect(tabulated.short).toEqual(['a', 'b']);
    expect(tabulated.numbers).toBe(value.numbers);
    expect(tabulated.rowIds).toBe(value.rowIds);
    // (Not through structuredClone here: what it makes belongs to another realm than Jest's, for toEqual.)
    const restored = runAllSteps(restoringStringLists(tabulated));
    expect(restored.packed).toEqual(value.packed);
    expect(restored.short).toEqual(value.short);
    expect(restored.rowIds).toBe(value.rowIds);
    expect(tabulateStringLists(null)).toBeNull();
  });
});
