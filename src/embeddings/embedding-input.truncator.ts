import type { Tiktoken } from 'js-tiktoken/lite';

let sharedEncoder: Tiktoken | null = null;

/** OpenAI's embedding models tokenise with cl100k_base; its ranks (~1.7 MB) load on first need only. */
function cl100k(): Tiktoken {
  if (!sharedEncoder) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start
    const { Tiktoken: TiktokenClass } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start
    const ranks = require('js-tiktoken/ranks/cl100k_base') as { default: ConstructorParameters<typeof Tiktoken>[0] };
    sharedEncoder = new TiktokenClass(ranks.default ?? ranks);
  }
  return sharedEncoder;
}

/**
 * Cuts a text to at most `maxTokens` cl100k_base tokens, so an embedding request never fails on
 * input length. A BPE token covers at least one UTF-8 byte, so texts of at most `maxTokens` bytes
 * (every node text of ASCII-ish content under the 8000-character cap) skip the tokenizer entirely.
 */
export function truncateToTokenLimit(text: string, maxTokens: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxTokens) return text;
  const encoder = cl100k();
  const tokens = encoder.encode(text, [], []);
  if (tokens.length <= maxTokens) return text;
  // A cut inside a multi-byte character decodes to U+FFFD: drop it rather than send a broken character.
  return encoder.decode(tokens.slice(0, maxTokens)).replace(/\uFFFD+$/u, '');
}
