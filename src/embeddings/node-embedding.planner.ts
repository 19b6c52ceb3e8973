import { StoredEmbeddingState } from '../graph/graph-store';
import { GraphNode, NodeTypeConfig } from '../graph/graph.types';
import { embeddingTextHash } from './embedding-text-hash';
import { createNodeEmbeddingText } from './node-embedding-text';

/** What to do with one node: embed this text, or skip it (nothing to embed, or its vector is current). */
export type NodeEmbeddingDecision =
  | { action: 'embed'; nodeKey: string; text: string; hash: string }
  | { action: 'skip'; nodeKey: string; reason: 'empty' | 'unchanged' };

/**
 * Decides whether a node needs a (new) vector: its embedding text is empty → skip; its stored
 * vector has the same model and the same text hash → skip (unchanged, or only moved or resized);
 * otherwise embed (no vector yet, another model's, or a stale one). `force` embeds every non-empty
 * text. Pure.
 */
export function planNodeEmbedding(
  node: GraphNode,
  typeConfig: NodeTypeConfig | undefined,
  stored: StoredEmbeddingState | undefined,
  model: string,
  force = false,
): NodeEmbeddingDecision {
  const text = createNodeEmbeddingText(node, typeConfig);
  if (!text) return { action: 'skip', nodeKey: node._key, reason: 'empty' };
  const hash = embeddingTextHash(text);
  if (!force && stored?.model === model && stored.hash === hash)
    return { action: 'skip', nodeKey: node._key, reason: 'unchanged' };
  return { action: 'embed', nodeKey: node._key, text, hash };
}
