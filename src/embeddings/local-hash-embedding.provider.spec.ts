import { createHash } from 'node:crypto';
import { LlmAbortError } from '../providers/llm-abort.error';
import { LocalHashEmbeddingProvider } from './local-hash-embedding.provider';

function cosine(left: Float32Array, right: Float32Array): number {
  let dot = 0;
  for (let index = 0; index < left.length; index++) dot += left[index] * right[index];
  return dot;
}

function norm(vector: Float32Array): number {
  return Math.sqrt(cosine(vector, vector));
}

describe(LocalHashEmbeddingProvider.name, () => {
  const provider = new LocalHashEmbeddingProvider();
  const similarity = (left: string, right: string): number =>
    cosine(provider.vectorize(left), provider.vectorize(right));

  it('names its version and dimension, 512 by default', () => {
    expect(provider.dimension).toBe(512);
    expect(provider.modelName).toBe('local-hash-v1-512');
    const small = new LocalHashEmbeddingProvider({ dimension: 256 });
    expect(small.modelName).toBe('local-hash-v1-256');
    expect(small.vectorize('fetch players')).toHaveLength(256);
    expect(() => new LocalHashEmbeddingProvider({ dimension: 0 })).toThrow(RangeError);
    expect(() => new LocalHashEmbeddingProvider({ dimension: 100.5 })).toThrow(RangeError);
  });

  it('is deterministic: the same text gives the same vector in any instance', () => {
    const text = 'Fetch the active NBA players from the stats API; errors go to the second output.';
    expect(Array.from(new LocalHashEmbeddingProvider().vectorize(text))).toEqual(Array.from(provider.vectorize(text)));
  });

  it('returns unit vectors, and the zero vector for a text without any word', () => {
    expect(norm(provider.vectorize('Sort players by points per game, then by assists'))).toBeCloseTo(1, 5);
    expect(norm(provider.vectorize('x'))).toBe(0);
    expect(norm(provider.vectorize('   '))).toBe(0);
    expect(norm(provider.vectorize('the of and const return'))).toBe(0);
  });

  it('meets identifiers split differently: camelCase, kebab-case, snake_case and spaces', () => {
    expect(similarity('fetchPlayers', 'fetch players')).toBeGreaterThan(0.99);
    expect(similarity('fetch-players', 'FETCH_PLAYERS')).toBeGreaterThan(0.99);
    expect(similarity('Vérifier les données', 'verifier les donnees')).toBeGreaterThan(0.99);
  });

  it('puts related texts closer than unrelated ones', () => {
    const fetchNode =
      'type: httpRequest\nnode: fetch-api\n// Fetch the active NBA players from the stats API.\nconst response = await fetch(url);';
    const renderNode =
      'type: html\nnode: display-html\n// Render the players as a table.\nrender(`<table class="nba-players">`);';
    const question = 'where do we fetch the players from the api';
    expect(similarity(question, fetchNode)).toBeGreaterThan(similarity(question, renderNode) + 0.15);
    expect(similarity('check the DMARC record', 'check-dmarc1: resolve _dmarc TXT record')).toBeGreaterThan(
      similarity('check the DMARC record', 'append a row to the google sheet') + 0.3,
    );
  });

  it('matches sub-words and typos through character n-grams', () => {
    // No shared whole word: only the character n-grams can bring these together.
    expect(similarity('notifcation', 'notification')).toBeGreaterThan(0.2);
    expect(similarity('notifcation', 'notification')).toBeGreaterThan(similarity('notifcation', 'spreadsheet') + 0.2);
    expect(similarity('whatsap', 'send via whatsapp')).toBeGreaterThan(similarity('whatsap', 'send via email') + 0.15);
  });

  it('embeds batches in order, identical to one-by-one', async () => {
    const texts = Array.from(
      { length: 40 },
      (_, index) => `node ${index} computes total ${index % 3 === 0 ? 'carbon' : 'revenue'}`,
    );
    const batch = await provider.embed(texts);
    expect(batch).toHaveLength(40);
    for (const [index, text] of texts.entries())
      expect(Array.from(batch[index])).toEqual(Array.from(await provider.embedOne(text)));
    expect(await provider.embed([])).toEqual([]);
  });

  it('stops when the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(provider.embed(['a text', 'another'], controller.signal)).rejects.toMatchObject({
      name: 'AbortError',
    });
    await expect(provider.embedOne('a text', controller.signal)).rejects.toBeInstanceOf(LlmAbortError);
  });

  // Stored vectors stay comparable only while the model is unchanged: if this fails, the tokenizer,
  // stemmer, stop words, hash or weights changed, so bump LocalHashEmbeddingProvider.VERSION and
  // update the fingerprint (the old vectors then get re-embedded as outdated, never compared).
  it('keeps the vectors of version 1 (fingerprint of a fixed text)', () => {
    const vector = provider.vectorize(
      'fetchPlayers: Fetch the active NBA players from the stats API (données, café, 2024).',
    );
    const rounded = Array.from(vector, (value) => value.toFixed(5)).join(',');
    expect(createHash('sha256').update(rounded).digest('hex').slice(0, 16)).toBe('f9a02bca3ce24420');
  });
});
