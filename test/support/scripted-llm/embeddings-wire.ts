/**
 * Deterministic embeddings: the same text always gets the same unit vector (FNV-1a seed, then a
 * small PRNG), so retrieval tests are reproducible without a model.
 */
export function deterministicVector(text: string, dimension: number): number[] {
  let seed = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    seed ^= text.charCodeAt(index);
    seed = Math.imul(seed, 0x01000193) >>> 0;
  }
  const vector: number[] = [];
  let state = seed || 1;
  for (let index = 0; index < dimension; index++) {
    // xorshift32
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    vector.push(state / 0xffffffff - 0.5);
  }
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0)) || 1;
  return vector.map((value) => value / norm);
}

/** The OpenAI SDK asks for base64 (little-endian float32) unless told otherwise. */
function encode(vector: number[], format: unknown): number[] | string {
  if (format !== 'base64') return vector;
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

/** An OpenAI /embeddings answer for these vectors. */
export function renderEmbeddings(vectors: number[][], body: any): unknown {
  const inputs: unknown[] = Array.isArray(body?.input) ? body.input : [body?.input];
  const promptTokens = inputs.reduce<number>(
    (sum, input) => sum + Math.max(1, Math.ceil(String(input ?? '').length / 4)),
    0,
  );
  return {
    object: 'list',
    data: vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: encode(vector, body?.encoding_format),
    })),
    model: typeof body?.model === 'string' ? body.model : 'scripted-embedding',
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

export function embeddingInputs(body: any): string[] {
  const input = body?.input;
  return (Array.isArray(input) ? input : [input]).map((item) =>
    typeof item === 'string' ? item : JSON.stringify(item),
  );
}
