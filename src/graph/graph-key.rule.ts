/** Longest graph key accepted anywhere (path or body). */
export const GRAPH_KEY_MAX_LENGTH = 256;

// eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * The one rule for a graph key, wherever a request carries one (a path like PUT /api/graphs/:graphKey,
 * a body field like `graphKey` of chat), so a key one route accepts is never refused by another:
 * 1 to 256 characters, no control character (NUL included), no `/` or `\`, not `.` or `..`. The key
 * is a name, never a path; ArangoDB keys fit it. Returns why `value` breaks it
 * ("must be at most 256 characters"), or null when it is a valid key.
 */
export function graphKeyProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return 'must be a non-empty string';
  if (value.length > GRAPH_KEY_MAX_LENGTH) return `must be at most ${GRAPH_KEY_MAX_LENGTH} characters`;
  if (CONTROL_CHARACTER.test(value)) return 'must not contain control characters';
  if (value.includes('/') || value.includes('\\')) return 'must not contain / or \\';
  if (value === '.' || value === '..') return 'must not be . or ..';
  return null;
}
