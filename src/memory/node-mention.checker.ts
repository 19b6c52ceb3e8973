import type { GraphDataSource } from '../graph/graph-data-source';
import type { NodeMention } from './memory-record';
import { nodeContentFingerprint } from './node-content.fingerprint';

/** Candidate keys checked per record: a summary names a few nodes; a turn's text may hold many words. */
export const MENTION_CANDIDATES_MAX = 500;
const KEY_MAX_CHARS = 200;

/**
 * Keeps the candidate node keys that exist in the graph (a model may invent keys; a word of a message
 * is only a mention when a node has that key), each once, sorted, with the fingerprint of the node's
 * content now. Reading the nodes is one batched lookup; nothing else.
 */
export async function checkNodeMentions(
  source: GraphDataSource,
  graphKey: string,
  candidates: Iterable<string>,
): Promise<NodeMention[]> {
  const keys = new Set<string>();
  for (const candidate of candidates) {
    const key = candidate.trim();
    if (key.length === 0 || key.length > KEY_MAX_CHARS) continue;
    keys.add(key);
    if (keys.size >= MENTION_CANDIDATES_MAX) break;
  }
  if (keys.size === 0) return [];
  const nodes = await source.getNodesByKeys(graphKey, [...keys]);
  const mentions = new Map<string, NodeMention>();
  for (const node of nodes) mentions.set(node._key, { key: node._key, fingerprint: nodeContentFingerprint(node) });
  return [...mentions.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Words of a text that could be node keys (letters, digits, `-`, `_`, `.`, `:`; at least 2 characters),
 * each once, in order of appearance. Only those that exist in the graph become mentions.
 */
export function keyCandidatesIn(text: string): string[] {
  const words = text.match(/[\p{L}\p{N}][\p{L}\p{N}_\-.:]*[\p{L}\p{N}]/gu) ?? [];
  return [...new Set(words)];
}

/** Every string value inside a tool call's JSON arguments (node keys, sheet ids, queries), or none when they do not parse. */
export function stringsInJson(json: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  const found: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string') found.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') Object.values(value).forEach(visit);
  };
  visit(parsed);
  return found;
}
