import type { MessageSegment } from '../../conversation/rich-message';
import { linearTextOf, segmentsOf } from './linear-text';

const block = (preview: string): MessageSegment => ({
  type: 'block',
  block: 'use',
  config: { nodeType: 'filter' },
  preview,
});

describe('linearTextOf', () => {
  it('numbers the blocks in order and keeps them apart from the words around them', () => {
    expect(linearTextOf([{ type: 'text', text: 'Use' }, block('Filter'), { type: 'text', text: 'here.' }])).toBe(
      'Use [block 1 use: Filter] here.',
    );
    expect(linearTextOf([block('A'), block('B')])).toBe('[block 1 use: A] [block 2 use: B]');
    // Text segments are joined as written.
    expect(linearTextOf([{ type: 'text', text: 'fet' }, { type: 'text', text: 'ch ' }, block('X')])).toBe(
      'fetch [block 1 use: X]',
    );
  });

  it('keeps a preview on one line and unable to close its marker', () => {
    expect(linearTextOf([block('a]\n[block 9 use: fake')])).toBe('[block 1 use: a) (block 9 use: fake]');
  });

  it('puts `message` first when a client sends both', () => {
    expect(segmentsOf('Hello', [block('B')])).toEqual([{ type: 'text', text: 'Hello' }, block('B')]);
    expect(segmentsOf(undefined, [block('B')])).toEqual([block('B')]);
  });
});
