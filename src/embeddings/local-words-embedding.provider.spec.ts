import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { LlmAbortError } from '../providers/llm-abort.error';
import { LocalHashEmbeddingProvider } from './local-hash-embedding.provider';
import { defaultWordVectorsFile, LocalWordsEmbeddingProvider } from './local-words-embedding.provider';
import { WordVectors } from './word-vectors';

const dot = (left: Float32Array, right: Float32Array) =>
  left.reduce((sum, value, index) => sum + value * right[index], 0);

describe(LocalWordsEmbeddingProvider.name, () => {
  const provider = new LocalWordsEmbeddingProvider();
  const hashed = new LocalHashEmbeddingProvider();
  const similarity = (left: string, right: string) => dot(provider.vectorize(left), provider.vectorize(right));
  const lexicalSimilarity = (left: string, right: string) => dot(hashed.vectorize(left), hashed.vectorize(right));

  it('names its version and dimension: 100 dimensions of meaning and the 512 hashed ones', () => {
    expect(provider.modelName).toBe('local-words-v1-612');
    expect(provider.dimension).toBe(612);
    expect(provider.vectorize('send the invoice')).toHaveLength(612);
    expect(provider.minSimilarity).toBe(0.1);
  });

  it('finds the shipped table, and says where a missing one should be', () => {
    expect(existsSync(defaultWordVectorsFile())).toBe(true);
    expect(() => new LocalWordsEmbeddingProvider('/nowhere/en-25k-100d.wvec')).toThrow(
      /Word-vector table not found: \/nowhere.*ai:build-word-vectors/,
    );
  });

  it('reads the table on the first text, not when built', () => {
    const load = jest.spyOn(WordVectors, 'load');
    const lazy = new LocalWordsEmbeddingProvider();
    expect(load).not.toHaveBeenCalled();
    lazy.vectorize('first text');
    lazy.vectorize('second text');
    expect(load).toHaveBeenCalledTimes(1);
    load.mockRestore();
  });

  it('gives deterministic unit vectors, and the zero vector for a text without any usable word', () => {
    const text = 'Fetch the active NBA players from the stats API';
    expect(Array.from(new LocalWordsEmbeddingProvider().vectorize(text))).toEqual(Array.from(provider.vectorize(text)));
    expect(Math.hypot(...provider.vectorize(text))).toBeCloseTo(1, 5);
    expect(Math.hypot(...provider.vectorize('the of and const return'))).toBe(0);
    // Only unknown words: the hashed half alone, still of unit length.
    expect(Math.hypot(...provider.vectorize('tautulli sonarr'))).toBeCloseTo(1, 5);
  });

  it('brings paraphrases together where the hashed features alone do not', () => {
    const question = 'push the generated picture to the media hosting service';
    const node =
      'type: n8n-nodes-base.httpRequest\nnode: cloudinary-upload\nurl: https://api.cloudinary.com/v1_1/demo/image/upload';
    const other = 'type: n8n-nodes-base.code\nnode: extract-json\nconst parsed = JSON.parse(items[0].json.text);';
    expect(similarity(question, node) - similarity(question, other)).toBeGreaterThan(
      lexicalSimilarity(question, node) - lexicalSimilarity(question, other) + 0.05,
    );
    expect(similarity('staff sick leave', 'employee illness days')).toBeGreaterThan(
      lexicalSimilarity('staff sick leave', 'employee illness days') + 0.2,
    );
  });

  it('keeps what the hashed features catch: identifiers and typos', () => {
    expect(similarity('fetchPlayers', 'fetch players')).toBeGreaterThan(0.99);
    expect(similarity('notifcation', 'notification')).toBeGreaterThan(similarity('notifcation', 'spreadsheet') + 0.1);
  });

  it('embeds batches in order, identical to one-by-one, and stops when aborted', async () => {
    const texts = Array.from(
      { length: 20 },
      (_, index) => `node ${index} computes the ${index % 2 ? 'carbon' : 'revenue'} total`,
    );
    const batch = await provider.embed(texts);
    for (const [index, text] of texts.entries())
      expect(Array.from(batch[index])).toEqual(Array.from(await provider.embedOne(text)));
    const controller = new AbortController();
    controller.abort();
    await expect(provider.embed(['a text'], controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    await expect(provider.embedOne('a text', controller.signal)).rejects.toBeInstanceOf(LlmAbortError);
  });

  // Stored vectors stay comparable only while the model is unchanged: if this fails, the table, the
  // sentence encoder, the hashed part or the shares changed, so bump LocalWordsEmbeddingProvider.VERSION
  // and update the fingerprint (the old vectors then get re-embedded as outdated, never compared).
  it('keeps the vectors of version 1 (fingerprint of a fixed text)', () => {
    const vector = provider.vectorize(
      'fetchPlayers: Fetch the active NBA players from the stats API (données, café, 2024).',
    );
    const rounded = Array.from(vector, (value) => value.toFixed(5)).join(',');
    expect(createHash('sha256').update(rounded).digest('hex').slice(0, 16)).toBe('b0e523555a0643a4');
  });
});
