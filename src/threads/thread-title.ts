/** Longest title kept, in characters (the thread list shows one line). */
export const THREAD_TITLE_MAX_CHARS = 60;

const FALLBACK_TITLE = 'New conversation';

/**
 * The title of a thread, from its first user message, without any LLM call (one upstream call per
 * round, nothing hidden): whitespace collapsed, cut at a word boundary when one is
 * near, with an ellipsis when cut.
 */
export function deriveThreadTitle(firstUserMessage: string): string {
  const text = firstUserMessage.replace(/\s+/g, ' ').trim();
  if (text.length === 0) return FALLBACK_TITLE;
  const chars = Array.from(text); // code points: never cut an emoji or a surrogate pair in half
  if (chars.length <= THREAD_TITLE_MAX_CHARS) return text;
  const cut = chars.slice(0, THREAD_TITLE_MAX_CHARS - 1).join('');
  const lastSpace = cut.lastIndexOf(' ');
  const head = lastSpace >= THREAD_TITLE_MAX_CHARS * 0.6 ? cut.slice(0, lastSpace) : cut;
  return `${head.replace(/[\s.,;:!?-]+$/, '')}…`;
}
