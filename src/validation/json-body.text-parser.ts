import { FieldProblem } from '../errors/validation-problems';
import { findJsonShapeProblem } from './json-shape.checker';

/** What a request body's bytes hold: the parsed value, or why it is refused. */
export type ParsedJsonBody = { value: unknown } | { malformed: true } | { problem: FieldProblem };

/** JSON white space (RFC 8259), the only characters allowed before the first value. */
const LEADING_WHITE_SPACE = /^[ \t\n\r]*/;

/**
 * Parses a UTF-8 request body as the JSON body parser does (body-parser's `json`, strict): a leading
 * byte order mark dropped, an empty body read as `{}`, anything but an object or an array at the top
 * refused as malformed; then the shape check of every body (findJsonShapeProblem). Pure: runs in the
 * body parser's worker thread and, when that thread cannot run, on the caller's.
 */
export function parseJsonBodyBytes(bytes: Uint8Array): ParsedJsonBody {
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return { value: {} };
  const first = text[LEADING_WHITE_SPACE.exec(text)?.[0].length ?? 0];
  if (first !== '{' && first !== '[') return { malformed: true };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { malformed: true };
  }
  const problem = findJsonShapeProblem(value);
  return problem ? { problem } : { value };
}
