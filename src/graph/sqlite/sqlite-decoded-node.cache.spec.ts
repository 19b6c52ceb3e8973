import { SqliteDecodedNodeCache } from './sqlite-decoded-node.cache';
import { KeyedDocumentRow } from './sqlite-graph.statements';

/** Stored documents of graph 1, and the keys each read asked for. */
function storedNodes(keys: string[]) {
  const reads: string[][] = [];
  const read = (missing: string[]): KeyedDocumentRow[] => {
    reads.push(missing);
    return missing.filter((key) => keys.includes(key)).map((key) => ({ key, document: JSON.stringify({ _key: key }) }));
  };
  return { read, reads };
}

describe(SqliteDecodedNodeCache.name, () => {
  const ref = (revision: number, id = 1) => ({ id, revision, embeddingRevision: 0 });

  it('decodes a node once per graph revision, shares it frozen, and leaves out keys without a row', () => {
    const cache = new SqliteDecodedNodeCache();
    const { read, reads } = storedNodes(['a', 'b', 'c']);
    const first = cache.byKeys(ref(1), ['a', 'b', 'a', 'gone'], read);
    expect([...first.keys()]).toEqual(['a', 'b']);
    expect(Object.isFrozen(first.get('a'))).toBe(true);

    const second = cache.byKeys(ref(1), ['b', 'c', 'a'], read);
    expect(second.get('a')).toBe(first.get('a'));
    expect(second.get('c')).toEqual({ _key: 'c' });
    expect(reads).toEqual([['a', 'b', 'gone'], ['c']]);

    // The graph moved on: every node is read again; another graph's node of the same key is its own.
    const moved = cache.byKeys(ref(2), ['a'], read);
    expect(moved.get('a')).not.toBe(first.get('a'));
    cache.byKeys(ref(1, 7), ['a'], read);
    expect(reads.slice(2)).toEqual([['a'], ['a']]);
  });

  it('drops the least recently used nodes beyond its bound', () => {
    const cache = new SqliteDecodedNodeCache(2);
    const { read, reads } = storedNodes(['a', 'b', 'c']);
    cache.byKeys(ref(1), ['a', 'b'], read);
    cache.byKeys(ref(1), ['a'], read);
    cache.byKeys(ref(1), ['c'], read);
    expect(cache.size).toBe(2);
    cache.byKeys(ref(1), ['a', 'c'], read);
    cache.byKeys(ref(1), ['b'], read);
    expect(reads).toEqual([['a', 'b'], ['c'], ['b']]);
  });
});
