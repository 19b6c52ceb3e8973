import type { NodeTypeConfig } from '../graph.types';
import type { Stepwise } from '../search/stepwise';
import type { BuiltSearchIndex, BuiltVectorIndex } from './sqlite-index.builder';

/** What the main thread asks the index build thread (SqliteIndexBuilder's methods, by name). */
export type IndexBuildTask =
  | { kind: 'search'; graphId: number; snapshot: boolean }
  | { kind: 'searchSnapshot'; graphId: number }
  | { kind: 'vectors'; graphId: number; model: string }
  | { kind: 'stagedBegin'; graphId: number; configs: NodeTypeConfig[] }
  | { kind: 'stagedRows'; graphId: number }
  | { kind: 'stagedEnd'; graphId: number }
  | { kind: 'stagedSnapshot'; graphId: number; revision: number }
  | { kind: 'stagedAbort'; graphId: number }
  | { kind: 'checkpoint'; graphId: number };

/** Each task's answer. */
export interface IndexBuildResults {
  search: BuiltSearchIndex | null;
  searchSnapshot: BuiltSearchIndex | null;
  vectors: BuiltVectorIndex | null;
  stagedBegin: null;
  stagedRows: null;
  stagedEnd: BuiltSearchIndex | null;
  stagedSnapshot: null;
  stagedAbort: null;
  /** SQLite's `wal_checkpoint(PASSIVE)`: frames in the write-ahead log, and how many of them are now in the file. */
  checkpoint: { walFrames: number; checkpointedFrames: number };
}

export interface IndexBuildRequest {
  id: number;
  task: IndexBuildTask;
}

/** An answer to a request, or a line the main thread logs for the thread (which has no logger of its own). */
export type IndexBuildReply =
  | { id: number; result: IndexBuildResults[IndexBuildTask['kind']] }
  | { id: number; error: string }
  | { log: { level: 'info' | 'warn'; event: string; fields: Record<string, unknown> } };

/** What the thread is started with. */
export interface IndexBuildThreadData {
  /** The embedded store's file (the service's connection has migrated it). */
  file: string;
}

/**
 * A list of strings as it crosses from the thread: one text and where each string ends. Cloning
 * 100,000 separate strings takes tens of milliseconds of the receiving thread's event loop in one
 * piece; one text is a copy, and the strings are cut from it in steps (restoreStringLists).
 */
export interface StringList {
  stringList: true;
  text: string;
  /** offsets[i] .. offsets[i + 1]: string i (UTF-16 code units). */
  offsets: Uint32Array;
  /** 1 where the list held null. */
  nulls: Uint8Array | null;
}

/** Lists shorter than this cross as they are. */
const MIN_TABULATED_STRINGS = 256;

/** `value` with each list of strings (or nulls) in its plain objects turned into a StringList. */
export function tabulateStringLists<T>(value: T): T {
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [field, inner] of Object.entries(value)) {
    copy[field] = isStringList(inner) ? toStringList(inner) : tabulateStringLists(inner);
  }
  return copy as T;
}

/** The inverse of tabulateStringLists, in steps (see Stepwise): a step every few thousand strings. */
export function* restoringStringLists<T>(value: T): Stepwise<T> {
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [field, inner] of Object.entries(value)) {
    if (isPlainObject(inner) && (inner as Partial<StringList>).stringList === true) {
      const { text, offsets, nulls } = inner as unknown as StringList;
      const list = new Array<string | null>(offsets.length - 1);
      for (let index = 0; index < list.length; index += 1) {
        list[index] = nulls?.[index] ? null : text.slice(offsets[index], offsets[index + 1]);
        if (index % 4_096 === 4_095) yield;
      }
      copy[field] = list;
    } else {
      copy[field] = yield* restoringStringLists(inner);
    }
  }
  return copy as T;
}

function toStringList(list: Array<string | null>): StringList {
  const offsets = new Uint32Array(list.length + 1);
  const nulls = list.includes(null) ? new Uint8Array(list.length) : null;
  let length = 0;
  list.forEach((item, index) => {
    if (item === null) (nulls as Uint8Array)[index] = 1;
    else length += item.length;
    offsets[index + 1] = length;
  });
  return { stringList: true, text: list.join(''), offsets, nulls };
}

function isStringList(value: unknown): value is Array<string | null> {
  return (
    Array.isArray(value) &&
    value.length >= MIN_TABULATED_STRINGS &&
    value.every((item) => typeof item === 'string' || item === null)
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value);
}
