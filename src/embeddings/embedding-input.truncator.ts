import type * as Cl100kBase from 'gpt-tokenizer/encoding/cl100k_base';

let sharedEncoder: typeof Cl100kBase | null = null;

/** Special-token text (`<|endoftext|>`) is cut as the plain text it is, never refused. */
const PLAIN_TEXT_OPTIONS = { disallowedSpecial: new Set<string>() };

/** OpenAI's embedding models tokenise with cl100k_base; its ranks load on first need only. */
function cl100k(): typeof Cl100kBase {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start
  sharedEncoder ??= require('gpt-tokenizer/encoding/cl100k_base') as typeof Cl100kBase;
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
  const tokens = encoder.encode(text, PLAIN_TEXT_OPTIONS);
  if (tokens.length <= maxTokens) return text;
  // A cut inside a multi-byte character decodes to U+FFFD: drop it rather than send a broken character.
  return encoder.decode(tokens.slice(0, maxTokens)).replace(/\uFFFD+$/u, '');
}
