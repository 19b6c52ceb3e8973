/** Marker appended to every truncated text, so the model knows there is more to read. */
export const TRUNCATION_MARKER = '...';

/**
 * Cuts `text` to `maxLength` characters and appends "..." when it was longer. Never splits a
 * surrogate pair (a cut emoji would be an invalid character in the prompt).
 */
export function truncate(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let end = Math.max(0, maxLength);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}${TRUNCATION_MARKER}`;
}

/** JSON of a node's `data`, truncated; "" when there is none. */
export function summarizeData(data: unknown, maxLength: number): string {
  if (data === undefined || data === null) return '';
  let json: string | undefined;
  try {
    json = JSON.stringify(data);
  } catch {
    // Cyclic or BigInt data cannot be serialised; the model still learns that data exists.
    json = String(data);
  }
  return json === undefined ? '' : truncate(json, maxLength);
}
