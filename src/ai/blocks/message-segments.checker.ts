import { documentKeyProblem } from '../../graph/arango/arango-document-key';
import { BLOCKS_MAX, MENTION_MAX_CHARS, POINTER_KEYS_MAX, PREVIEW_MAX_CHARS, SEGMENTS_MAX } from '../chat-input';

/** The hard bound of one text segment; the configured MESSAGE_MAX_CHARS bounds the whole linear text (413). */
export const SEGMENT_TEXT_MAX_CHARS = 100_000;

const BLOCK_KINDS = ['pointer', 'use', 'create', 'modify_config'] as const;

/**
 * The first problem of a message's `segments` (docs/protocol.md §9.6), or null: an array of 1 to SEGMENTS_MAX text
 * segments `{ type: "text", text }` and blocks `{ type: "block", block, config, preview }` (at most BLOCKS_MAX), every
 * object without unknown keys, every key (node, edge, sheet, node type) of the characters of a document key, so no
 * user text reaches a system line of the model's history through them. Shared by the REST body's validation, the
 * socket's compiled check and the use case, so the three never disagree.
 */
export function messageSegmentsProblem(value: unknown): string | null {
  if (!Array.isArray(value)) return 'segments must be an array';
  if (value.length === 0) return 'segments must not be empty';
  if (value.length > SEGMENTS_MAX) return `segments holds more than ${SEGMENTS_MAX} segments`;
  let blocks = 0;
  for (const [index, segment] of value.entries()) {
    const at = `segments[${index}]`;
    if (!isObject(segment)) return `${at} must be an object`;
    if (segment.type === 'text') {
      const extra = unknownKey(segment, ['type', 'text']);
      if (extra) return `${at} has an unknown field "${extra}"`;
      if (typeof segment.text !== 'string') return `${at}.text must be a string`;
      if (segment.text.length > SEGMENT_TEXT_MAX_CHARS) return `${at}.text is longer than ${SEGMENT_TEXT_MAX_CHARS}`;
      continue;
    }
    if (segment.type !== 'block') return `${at}.type must be "text" or "block"`;
    blocks += 1;
    if (blocks > BLOCKS_MAX) return `segments holds more than ${BLOCKS_MAX} blocks`;
    const problem = blockProblem(segment, at);
    if (problem) return problem;
  }
  return null;
}

function blockProblem(segment: Record<string, unknown>, at: string): string | null {
  const extra = unknownKey(segment, ['type', 'block', 'config', 'preview']);
  if (extra) return `${at} has an unknown field "${extra}"`;
  if (!BLOCK_KINDS.includes(segment.block as (typeof BLOCK_KINDS)[number]))
    return `${at}.block must be one of ${BLOCK_KINDS.join(', ')}`;
  if (typeof segment.preview !== 'string' || segment.preview.trim().length === 0)
    return `${at}.preview must be a non-blank string`;
  if (segment.preview.length > PREVIEW_MAX_CHARS) return `${at}.preview is longer than ${PREVIEW_MAX_CHARS}`;
  const config = segment.config;
  if (!isObject(config)) return `${at}.config must be an object`;
  switch (segment.block) {
    case 'pointer': {
      const extraKey = unknownKey(config, ['nodeKeys', 'edgeKeys', 'sheet']);
      if (extraKey)
        return `${at}.config has an unknown field "${extraKey}" (a pointer takes nodeKeys, edgeKeys, sheet)`;
      if (config.nodeKeys === undefined && config.edgeKeys === undefined && config.sheet === undefined)
        return `${at}.config must name nodeKeys, edgeKeys or a sheet`;
      for (const field of ['nodeKeys', 'edgeKeys'] as const) {
        if (config[field] === undefined) continue;
        const keys = config[field];
        if (!Array.isArray(keys) || keys.length === 0 || keys.length > POINTER_KEYS_MAX)
          return `${at}.config.${field} must be an array of 1 to ${POINTER_KEYS_MAX} keys`;
        for (const [keyIndex, key] of keys.entries()) {
          const problem = keyProblem(key, `${at}.config.${field}[${keyIndex}]`);
          if (problem) return problem;
        }
      }
      return config.sheet === undefined ? null : keyProblem(config.sheet, `${at}.config.sheet`);
    }
    case 'use':
    case 'create': {
      const extraKey = unknownKey(config, ['nodeType']);
      if (extraKey) return `${at}.config has an unknown field "${extraKey}" (a ${segment.block} block takes nodeType)`;
      return keyProblem(config.nodeType, `${at}.config.nodeType`);
    }
    default: {
      const extraKey = unknownKey(config, ['nodeKey']);
      if (extraKey) return `${at}.config has an unknown field "${extraKey}" (a modify_config block takes nodeKey)`;
      return keyProblem(config.nodeKey, `${at}.config.nodeKey`);
    }
  }
}

function keyProblem(key: unknown, at: string): string | null {
  if (typeof key !== 'string') return `${at} must be a string`;
  if (key.length > MENTION_MAX_CHARS) return `${at} is longer than ${MENTION_MAX_CHARS}`;
  const problem = documentKeyProblem(key);
  return problem ? `${at} ${problem}` : null;
}

function unknownKey(value: Record<string, unknown>, known: readonly string[]): string | undefined {
  return Object.keys(value).find((key) => !known.includes(key));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
