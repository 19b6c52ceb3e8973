import { createHash } from 'node:crypto';

/**
 * What the scripted server knows about a chat request's prompt, as the providers count it: its size in
 * tokens (4 characters each, as the derived usage of scripted turns), how much of it is a
 * byte-identical prefix of the previous request's, and the part a provider's prompt cache would serve.
 */
export interface PromptStats {
  /** Characters of the canonical prompt text (tools, then system, then messages, as the provider reads them). */
  chars: number;
  tokens: number;
  /**
   * Characters shared, from the start, with the previous prompt of the same conversation on this
   * endpoint (prompts whose first piece — the first tool, or the system text — is the same: a
   * summary call between two questions of a thread is another conversation).
   */
  sharedPrefixChars: number;
  /** Tokens a provider cache would serve (OpenAI automatic prefix cache; Anthropic cache_control breakpoints). */
  cachedTokens: number;
  /** Anthropic: tokens written to the cache by this request (cache_creation_input_tokens). */
  cacheWriteTokens: number;
}

/** One piece of the prompt in the provider's order; `breakpoint`: the piece carries Anthropic `cache_control`. */
interface PromptPiece {
  text: string;
  breakpoint: boolean;
}

const CHARS_PER_TOKEN = 4;
/** Below this, neither provider caches a prefix (OpenAI: 1,024 tokens; Anthropic Sonnet/Opus: 1,024). */
export const MIN_CACHEABLE_TOKENS = 1024;
/** Anthropic looks for an earlier cache entry at the block boundaries up to about 20 blocks before each breakpoint. */
const ANTHROPIC_LOOKBACK_BLOCKS = 20;
/** OpenAI caches in 128-token increments beyond the first 1,024. */
const OPENAI_CACHE_INCREMENT = 128;

export const tokensOf = (chars: number): number => Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN));

/**
 * A provider's prompt cache, simulated per endpoint (the scripted server keeps one for OpenAI and one
 * for Anthropic):
 *  - OpenAI (automatic): the longest prefix this prompt shares with any earlier prompt, in tokens,
 *    rounded down to a multiple of 128 once it reaches 1,024; nothing below 1,024.
 *  - Anthropic (explicit): the prefix up to a `cache_control` breakpoint is written to the cache
 *    (when it reaches 1,024 tokens); a later prompt reads the longest prefix written before that ends
 *    at a block boundary within the 20 blocks up to one of its breakpoints, and writes the rest.
 */
export class PromptCacheSimulator {
  /** Hashes of every cached prefix: chained block hashes, so a lookup costs one pass over the new prompt. */
  private readonly cached = new Set<string>();
  /** The last prompt of each conversation, by the hash of its first piece. */
  private readonly previous = new Map<string, string>();

  /** Counts a request that reached the model (a refused one is not cached and is not "the previous request"). */
  observe(endpoint: 'openai.chat' | 'anthropic.messages', body: any): PromptStats {
    return endpoint === 'anthropic.messages' ? this.anthropic(body) : this.openAi(body);
  }

  /** OpenAI caches prefixes in 128-token blocks: the longest run of leading blocks some earlier prompt also had. */
  private openAi(body: any): PromptStats {
    const text = openAiPieces(body)
      .map((piece) => piece.text)
      .join('');
    const blockChars = OPENAI_CACHE_INCREMENT * CHARS_PER_TOKEN;
    const hashes = chainedHashes(
      text,
      Array.from({ length: Math.floor(text.length / blockChars) }, (_, index) => (index + 1) * blockChars),
    );
    let blocks = 0;
    while (blocks < hashes.length && this.cached.has(hashes[blocks])) blocks += 1;
    for (const hash of hashes) this.cached.add(hash);
    const sharedTokens = blocks * OPENAI_CACHE_INCREMENT;
    return this.stats(openAiPieces(body), text, sharedTokens < MIN_CACHEABLE_TOKENS ? 0 : sharedTokens, 0);
  }

  private anthropic(body: any): PromptStats {
    const pieces = anthropicPieces(body);
    const text = pieces.map((piece) => piece.text).join('');
    const ends: number[] = [];
    let offset = 0;
    for (const piece of pieces) ends.push((offset += piece.text.length));
    const hashes = chainedHashes(text, ends);
    const cacheable = (end: number) => Math.floor(end / CHARS_PER_TOKEN) >= MIN_CACHEABLE_TOKENS;
    const breakpoints = pieces.flatMap((piece, index) => (piece.breakpoint && cacheable(ends[index]) ? [index] : []));
    // A breakpoint reads the longest prefix written before that ends at one of the 20 blocks up to it.
    let read = 0;
    for (const index of breakpoints) {
      for (let candidate = index; candidate >= Math.max(0, index - ANTHROPIC_LOOKBACK_BLOCKS + 1); candidate -= 1) {
        if (ends[candidate] > read && this.cached.has(hashes[candidate])) read = ends[candidate];
      }
    }
    for (const index of breakpoints) this.cached.add(hashes[index]);
    const last = breakpoints.length > 0 ? ends[breakpoints[breakpoints.length - 1]] : 0;
    const cachedTokens = Math.floor(read / CHARS_PER_TOKEN);
    return this.stats(pieces, text, cachedTokens, last > read ? Math.floor(last / CHARS_PER_TOKEN) - cachedTokens : 0);
  }

  private stats(
    pieces: readonly PromptPiece[],
    text: string,
    cachedTokens: number,
    cacheWriteTokens: number,
  ): PromptStats {
    const conversation = createHash('sha1')
      .update(pieces[0]?.text ?? '')
      .digest('hex');
    const previous = this.previous.get(conversation);
    const sharedPrefixChars = previous === undefined ? 0 : commonPrefix(previous, text);
    this.previous.set(conversation, text);
    return { chars: text.length, tokens: tokensOf(text.length), sharedPrefixChars, cachedTokens, cacheWriteTokens };
  }
}

/** Tokens of a request's prompt as this server counts them, without touching any cache. */
export function promptTokens(endpoint: 'openai.chat' | 'anthropic.messages', body: any): number {
  const pieces = endpoint === 'anthropic.messages' ? anthropicPieces(body) : openAiPieces(body);
  return tokensOf(pieces.reduce((sum, piece) => sum + piece.text.length, 0));
}

/** For each end (ascending), a hash of text[0, end): each chains the previous one with the text since it. */
function chainedHashes(text: string, ends: readonly number[]): string[] {
  const hashes: string[] = [];
  let previous = '';
  let start = 0;
  for (const end of ends) {
    previous = createHash('sha1').update(previous).update(text.slice(start, end)).digest('hex');
    hashes.push(previous);
    start = end;
  }
  return hashes;
}

function commonPrefix(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  return index;
}

const piece = (value: unknown, breakpoint = false): PromptPiece => ({ text: JSON.stringify(value), breakpoint });

/** OpenAI reads tools, then the messages in order. */
function openAiPieces(body: any): PromptPiece[] {
  const tools: unknown[] = Array.isArray(body?.tools) ? body.tools : [];
  const messages: unknown[] = Array.isArray(body?.messages) ? body.messages : [];
  return [...tools.map((tool) => piece(tool)), ...messages.map((message) => piece(message))];
}

/**
 * Anthropic reads tools, then system blocks, then messages; any of them may carry cache_control, which
 * marks a breakpoint and is not part of the cached content.
 */
function anthropicPieces(body: any): PromptPiece[] {
  const marked = (value: any) => Boolean(value?.cache_control);
  const piece = (value: any, breakpoint: boolean): PromptPiece => {
    const { cache_control: _marker, ...content } = value ?? {};
    return { text: JSON.stringify(content), breakpoint };
  };
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
  const system: any[] =
    typeof body?.system === 'string'
      ? [{ type: 'text', text: body.system }]
      : Array.isArray(body?.system)
        ? body.system
        : [];
  const pieces: PromptPiece[] = [
    ...tools.map((tool) => piece(tool, marked(tool))),
    ...system.map((block) => piece(block, marked(block))),
  ];
  for (const message of Array.isArray(body?.messages) ? body.messages : []) {
    const blocks: any[] =
      typeof message?.content === 'string' ? [{ type: 'text', text: message.content }] : (message?.content ?? []);
    pieces.push(piece({ role: message?.role }, false));
    for (const block of blocks) pieces.push(piece(block, marked(block)));
  }
  return pieces;
}
