import { blockLabel, composerBlocks, composeSegments, pointerToNodes } from './compose-segments';
import { linearTextOf } from './protocol';

describe('composeSegments', () => {
  it('cuts the text around the blocks written in it, then adds the attached ones', () => {
    const segments = composeSegments('Why does @fetch-api fail, and would /use filter help?', [
      pointerToNodes(['root', 'entry-form']),
    ]);
    expect(segments).toEqual([
      { type: 'text', text: 'Why does ' },
      { type: 'block', block: 'pointer', config: { nodeKeys: ['fetch-api'] }, preview: 'fetch-api' },
      { type: 'text', text: ' fail, and would ' },
      { type: 'block', block: 'use', config: { nodeType: 'filter' }, preview: 'filter' },
      { type: 'text', text: ' help?' },
      { type: 'block', block: 'pointer', config: { nodeKeys: ['root', 'entry-form'] }, preview: 'root, entry-form' },
    ]);
    expect(linearTextOf(segments ?? [])).toBe(
      'Why does [block 1 pointer: fetch-api] fail, and would [block 2 use: filter] help? [block 3 pointer: root, entry-form]',
    );
  });

  it('knows sheets, create and modify, and leaves an e-mail address or a lone slash alone', () => {
    expect(composerBlocks('@sheet:1 /create api-call /modify sort-stats').map(blockLabel)).toEqual([
      'pointer · sheet 1',
      'create · api-call',
      'modify · sort-stats',
    ]);
    expect(composeSegments('mail ada@example.com about a/use b')).toBeNull();
  });

  it('names at most three nodes of a selection in its preview', () => {
    expect(pointerToNodes(['a', 'b', 'c', 'd', 'e']).preview).toBe('a, b, c +2');
  });
});
