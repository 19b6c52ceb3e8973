import { StringInterner } from './string.interner';

describe(StringInterner.name, () => {
  it('gives back an equal string and keeps at most maxEntries strings', () => {
    const interner = new StringInterner(2);
    expect(interner.intern(['prompt', 'A'].join(' '))).toBe('prompt A');
    expect(interner.intern('prompt A')).toBe('prompt A');
    expect(interner.size).toBe(1);
    interner.intern('b');
    interner.intern('c');
    expect(interner.size).toBe(2);
  });
});
