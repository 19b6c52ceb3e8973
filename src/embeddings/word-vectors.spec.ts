import { encodeWordVectors, WordVectorEntry, WordVectors } from './word-vectors';

const norm = (vector: ArrayLike<number>) =>
  Math.sqrt(Array.from(vector).reduce((sum, value) => sum + value * value, 0));

describe(WordVectors.name, () => {
  // Every vector leans along the first axis (a shared component), as real word vectors do.
  const entries: WordVectorEntry[] = [
    { word: 'the', rank: 1, vector: [3, 0.1, 0] },
    { word: 'email', rank: 40, vector: [2, 1, 0.5] },
    { word: 'mail', rank: 90, vector: [2, 0.9, 0.7] },
    { word: 'banana', rank: 5000, vector: [2, -0.5, 1] },
  ];
  const table = WordVectors.decode(encodeWordVectors(entries, { sourceWords: 400_000, source: 'test vectors' }));

  it('reads back the words, ranks and unit directions it wrote (int8 along each direction)', () => {
    expect(table).toMatchObject({ dimension: 3, count: 4, sourceWords: 400_000, source: 'test vectors' });
    expect(table.indexOf('email')).toBe(1);
    expect(table.indexOf('unknown')).toBe(-1);
    expect(table.rankOf(table.indexOf('banana'))).toBe(5000);
    const email = new Float64Array(3);
    table.addUnitVector(email, table.indexOf('email'), 2);
    expect(norm(email)).toBeCloseTo(2, 6);
    const exact = entries[1].vector as number[];
    const cosine = (email[0] * exact[0] + email[1] * exact[1] + email[2] * exact[2]) / (norm(email) * norm(exact));
    expect(cosine).toBeGreaterThan(0.9999);
  });

  it('finds the shared direction of the vectors (a unit vector close to the axis they lean on)', () => {
    expect(norm(table.commonDirection)).toBeCloseTo(1, 6);
    expect(Math.abs(table.commonDirection[0])).toBeGreaterThan(0.8);
  });

  it('writes the same bytes for the same entries', () => {
    expect(encodeWordVectors(entries, { sourceWords: 400_000, source: 'test vectors' })).toEqual(
      encodeWordVectors(entries, { sourceWords: 400_000, source: 'test vectors' }),
    );
  });

  it('refuses what it cannot read: another format, another version, a cut file, a bad entry', () => {
    const bytes = encodeWordVectors(entries, { sourceWords: 10, source: 's' });
    expect(() => WordVectors.decode(Buffer.from('{"not":"vectors"}'))).toThrow(/WVEC/);
    expect(() => WordVectors.decode(bytes.subarray(0, bytes.length - 1))).toThrow(/truncated/);
    const headerLength = bytes.readUInt32LE(4);
    const header = JSON.parse(bytes.toString('utf8', 8, 8 + headerLength)) as Record<string, unknown>;
    const other = Buffer.from(JSON.stringify({ ...header, version: 2 }).padEnd(headerLength, ' '));
    expect(() =>
      WordVectors.decode(Buffer.concat([bytes.subarray(0, 8), other, bytes.subarray(8 + headerLength)])),
    ).toThrow(/version 2/);
    expect(() => encodeWordVectors([{ word: 'a\nb', rank: 1, vector: [1] }], { sourceWords: 1, source: 's' })).toThrow(
      /Invalid word/,
    );
    expect(() =>
      encodeWordVectors([entries[0], { word: 'x', rank: 2, vector: [1] }], { sourceWords: 1, source: 's' }),
    ).toThrow(/components/);
  });
});
