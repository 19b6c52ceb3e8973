import { FieldProblem } from '../errors/validation-problems';

/** The body parser's thread data: how many characters of JSON text one piece holds at most (but one item). */
export interface JsonBodyParseThreadData {
  pieceChars: number;
}

/** Main thread → thread: parse these bytes (transferred), or send the next piece of a parsed body. */
export type JsonBodyParseRequest =
  { id: number; kind: 'parse'; bytes: Uint8Array } | { id: number; kind: 'next' } | { id: number; kind: 'drop' };

/**
 * Thread → main thread. A parsed body comes back as JSON text in pieces, each parsed on the event
 * loop in a few milliseconds: first its `shell` (the value with each of its large arrays empty:
 * the top-level value itself when it is an array, `slots` naming them, null for the top level), then
 * on each `next` the following `items` of the slots in order, as the text of a JSON array, the last
 * piece with `last`.
 */
export type JsonBodyParseReply =
  | { id: number; kind: 'malformed' }
  | { id: number; kind: 'problem'; problem: FieldProblem }
  | { id: number; kind: 'shell'; text: string; slots: Array<string | null> }
  | { id: number; kind: 'items'; slot: number; text: string; last: boolean }
  | { id: number; kind: 'error'; error: string };
