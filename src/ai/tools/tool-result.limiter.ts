import { TOOL_RESULT_TEXTS } from './tool-result.texts';

/** Said when even a trimmed result must be cut as text (English; serializeToolResult takes the locale's). */
export const RESULT_CUT_NOTE = TOOL_RESULT_TEXTS.en.textCut;

/** What a shortened result says about it, in the run's language. */
export interface ResultCutNotes {
  listsCut: string;
  textCut: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface ArrayLocation {
  array: Json[];
  path: string;
  size: number;
}

/**
 * Serialises a tool result as JSON of at most `maxChars` characters. Too long a result first loses
 * list items (the largest list is shortened until it fits) and says so in a `_truncated` field, so it
 * stays valid JSON the model can read; a result dominated by one huge value is cut as text, and that
 * text is sent as a JSON string (`partialResult`): every tool result is a JSON object.
 */
export function serializeToolResult(
  result: object,
  maxChars: number,
  notes: ResultCutNotes = TOOL_RESULT_TEXTS.en,
): string {
  const json = JSON.stringify(result);
  if (json.length <= maxChars) return json;

  const copy = JSON.parse(json) as Json;
  const omitted: Record<string, number> = {};
  let current = json;
  for (let attempt = 0; attempt < 64 && current.length > maxChars; attempt++) {
    const largest = largestArray(copy, '');
    if (!largest || largest.array.length === 0) break;
    // Drop about as many items as the excess represents (each item ~ size / length characters).
    const excess = current.length - maxChars;
    const drop = Math.min(largest.array.length, Math.max(1, Math.ceil((excess * largest.array.length) / largest.size)));
    largest.array.splice(largest.array.length - drop, drop);
    omitted[largest.path || '(result)'] = (omitted[largest.path || '(result)'] ?? 0) + drop;
    current = JSON.stringify(withMarker(copy, omitted, notes.listsCut));
  }
  if (current.length <= maxChars) return current;
  return partialResult(current, maxChars, notes.textCut);
}

/** The beginning of a JSON text, as a JSON string inside an object of at most `maxChars` (escaping counted). */
function partialResult(text: string, maxChars: number, note: string): string {
  const wrap = (part: string) => JSON.stringify({ _truncated: { note }, partialResult: part });
  // The longest beginning that fits once escaped: escaping only ever lengthens, so search it.
  let low = 0;
  let high = Math.max(0, Math.min(text.length, maxChars - wrap('').length));
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (wrap(text.slice(0, middle)).length <= maxChars) low = middle;
    else high = middle - 1;
  }
  return wrap(text.slice(0, low));
}

function withMarker(value: Json, omitted: Record<string, number>, note: string): Json {
  if (Object.keys(omitted).length === 0 || value === null || typeof value !== 'object' || Array.isArray(value))
    return value;
  return { ...value, _truncated: { omittedItems: omitted, note } };
}

function largestArray(value: Json, path: string): ArrayLocation | null {
  let best: ArrayLocation | null = null;
  const consider = (candidate: ArrayLocation | null) => {
    if (candidate && (!best || candidate.size > best.size)) best = candidate;
  };
  if (Array.isArray(value)) {
    if (value.length > 0) consider({ array: value, path, size: JSON.stringify(value).length });
    value.forEach((item, index) => consider(largestArray(item, `${path}[${index}]`)));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) consider(largestArray(item, path ? `${path}.${key}` : key));
  }
  return best;
}
