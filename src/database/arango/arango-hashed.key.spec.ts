import { hashedDocumentKey } from './arango-hashed.key';

/** ArangoDB's traditional key rules: at most 254 bytes of letters, digits and _ - : . @ ( ) + , = ; $ ! * ' %. */
const VALID_KEY = /^[A-Za-z0-9_\-:.@()+,=;$!*'%]{1,254}$/;

describe(hashedDocumentKey.name, () => {
  it('makes a valid document key of any values, stable for the same values', () => {
    const key = hashedDocumentKey('idem', ['work space/é', 'user "x"', 'k'.repeat(1000)]);
    expect(key).toMatch(VALID_KEY);
    expect(key).toMatch(/^idem_[0-9a-f]{64}$/);
    expect(hashedDocumentKey('idem', ['work space/é', 'user "x"', 'k'.repeat(1000)])).toBe(key);
  });

  it('never lets two different value lists share a key, however their text lines up', () => {
    expect(hashedDocumentKey('idem', ['a', 'b|c'])).not.toBe(hashedDocumentKey('idem', ['a|b', 'c']));
    expect(hashedDocumentKey('idem', ['ab', 'c'])).not.toBe(hashedDocumentKey('idem', ['a', 'bc']));
    expect(hashedDocumentKey('ws', ['a'])).not.toBe(hashedDocumentKey('idem', ['a']));
  });
});
