import { GraphNode } from '../graph/graph.types';
import { embeddingTextHash } from './embedding-text-hash';
import { createNodeEmbeddingText } from './node-embedding-text';

describe(embeddingTextHash.name, () => {
  it('is the SHA-256 of the UTF-8 text, in hex', () => {
    expect(embeddingTextHash('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(embeddingTextHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(embeddingTextHash('café')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('stays the same for a moved node and changes with its content', () => {
    const original: GraphNode = {
      _key: 'n1',
      graphKey: 'g',
      type: 'code',
      sheet: '0',
      posX: 0,
      posY: 0,
      process: 'next(0, 1)',
    };
    const hashOf = (node: GraphNode) => embeddingTextHash(createNodeEmbeddingText(node));
    expect(hashOf({ ...original, posX: 300, posY: 40, size: { width: 10, height: 10 } })).toBe(hashOf(original));
    expect(hashOf({ ...original, process: 'next(0, 2)' })).not.toBe(hashOf(original));
    expect(hashOf({ ...original, data: { label: 'Totals' } })).not.toBe(hashOf(original));
  });
});
