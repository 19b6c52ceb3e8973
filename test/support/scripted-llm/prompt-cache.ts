/**
 * What the scripted server knows about a chat request's prompt, as the providers count it: its size in
 * tokens (4 characters each, as the derived usage of scripted turns), how much of it is a
 * byte-identical prefix of the previous request's, and the part a provider's prompt cache would serve.
 */
export interface PromptStats {
  /** Characters of the canonical prompt text (tools, then system, then messages, as the provider reads them). */
  chars: number;
  tokens: number;
  /** Characters shared with the previous chat request's prompt on the same endpoint, from the start. */
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
/** OpenAI caches in 128-token increments beyond the first 1,024. */
const OPENAI_CACHE_INCREMENT = 128;

export const tokensOf = (chars: number): number => Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN));

/**
 * A provider's prompt cache, simulated per endpoint (the scripted server keeps one for OpenAI and one
 * for Anthropic):
 *  - OpenAI (automatic): the longest prefix this prompt shares with any earlier prompt, in tokens,
 *    rounded down to a multiple of 128 once it reaches 1,024; nothing below 1,024.
 *  - Anthropic (explicit): the prefix up to a `cache_control` breakpoint is written to the cache
 *    (when it reaches 1,024 tokens); a later prompt reads the longest prefix ending at one of its own
 *    breakpoints that was written before, and writes the prefixes past it.
 */
export class PromptCacheSimulator {
  /** Every prompt seen, sorted and without repeats: the longest prefix shared with any is shared with a neighbour. */
  private readonly seen: string[] = [];
  private readonly written = new Set<string>();
  private previous: string | null = null;

  /** Counts a request that reached the model (a refused one is not cached and is not "the previous request"). */
  observe(endpoint: 'openai.chat' | 'anthropic.messages', body: any): PromptStats {
    return endpoint === 'anthropic.messages' ? this.anthropic(body) : this.openAi(body);
  }

  private openAi(body: any): PromptStats {
    const text = openAiPieces(body).map((piece) => piece.text).join('');
    // Binary search, not a scan of every earlier prompt: a burst of 1,000 requests compared each with all before it.
    const index = lowerBound(this.seen, text);
    const after = this.seen[index];
    const longest = Math.max(after === undefined ? 0 : commonPrefix(after, text), index > 0 ? commonPrefix(this.seen[index - 1], text) : 0);
    if (after !== text) this.seen.splice(index, 0, text);
    const sharedTokens = Math.floor(longest / CHARS_PER_TOKEN);
    const cachedTokens = sharedTokens < MIN_CACHEABLE_TOKENS ? 0 : Math.floor(sharedTokens / OPENAI_CACHE_INCREMENT) * OPENAI_CACHE_INCREMENT;
    return this.stats(text, cachedTokens, 0);
  }

  private anthropic(body: any): PromptStats {
    const pieces = anthropicPieces(body);
    const text = pieces.map((piece) => piece.text).join('');
    const ends: number[] = [];
    let offset = 0;
    for (const piece of pieces) {
      offset += piece.text.length;
      if (piece.breakpoint) ends.push(offset);
    }
    const cacheable = ends.filter((end) => Math.floor(end / CHARS_PER_TOKEN) >= MIN_CACHEABLE_TOKENS);
    const read = [...cacheable].reverse().find((end) => this.written.has(text.slice(0, end))) ?? 0;
    const last = cacheable.length > 0 ? cacheable[cacheable.length - 1] : 0;
    for (const end of cacheable) this.written.add(text.slice(0, end));
    const cachedTokens = Math.floor(read / CHARS_PER_TOKEN);
    return this.stats(text, cachedTokens, last > read ? Math.floor(last / CHARS_PER_TOKEN) - cachedTokens : 0);
  }

  private stats(text: string, cachedTokens: number, cacheWriteTokens: number): PromptStats {
    const sharedPrefixChars = this.previous === null ? 0 : commonPrefix(this.previous, text);
    this.previous = text;
    return { chars: text.length, tokens: tokensOf(text.length), sharedPrefixChars, cachedTokens, cacheWriteTokens };
  }
}

/** Tokens of a request's prompt as this server counts them, without touching any cache. */
export function promptTokens(endpoint: 'openai.chat' | 'anthropic.messages', body: any): number {
  const pieces = endpoint === 'anthropic.messages' ? anthropicPieces(body) : openAiPieces(body);
  return tokensOf(pieces.reduce((sum, piece) => sum + piece.text.length, 0));
}

/** The first index of `sorted` whose string is not below `value`. */
function lowerBound(sorted: string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
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

/** Anthropic reads tools, then system blocks, then messages; any of them may carry cache_control. */
function anthropicPieces(body: any): PromptPiece[] {
  const marked = (value: any) => Boolean(value?.cache_control);
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
  const system: any[] = typeof body?.system === 'string' ? [{ type: 'text', text: body.system }] : Array.isArray(body?.system) ? body.system : [];
  const pieces: PromptPiece[] = [...tools.map((tool) => piece(tool, marked(tool))), ...system.map((block) => piece(block, marked(block)))];
  for (const message of Array.isArray(body?.messages) ? body.messages : []) {
    const blocks: any[] = typeof message?.content === 'string' ? [{ type: 'text', text: message.content }] : (message?.content ?? []);
    pieces.push(piece({ role: message?.role }));
    for (const block of blocks) pieces.push(piece(block, marked(block)));
  }
  return pieces;
}
