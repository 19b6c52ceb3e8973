import { ScoredNode } from '../graph-data-source';
import { GraphNode, NodeTypeConfig } from '../graph.types';
import { hasNodeContentChanged } from '../node-content';
import { NodeSearchIndex } from '../search/node-search.index';
import { GraphOverlay } from './graph-overlay';

/** What the overlay search needs from the store: its ranked BM25 hits and the workspace's node configs. */
export interface LexicalSearchBase {
  searchNodes(graphKey: string, query: string, maxResults: number): Promise<ScoredNode[]>;
  getNodeConfigs(): Promise<NodeTypeConfig[]>;
}

/** Extra store hits asked for, so that hits the overlay hides still leave `maxResults`. */
const MAX_EXTRA_HITS = 1_000;

interface CachedOverlayIndex {
  version: number;
  configsFingerprint: string;
  index: NodeSearchIndex;
}

const overlayIndexes = new WeakMap<GraphOverlay, CachedOverlayIndex>();

/**
 * BM25 search of a graph as its live overlay shows it. The store ranks its own nodes with its own
 * corpus statistics; the overlay then:
 *  - drops hits the overlay deleted;
 *  - keeps hits whose overlay version only moved or resized (same content, same score), with the overlay's document;
 *  - re-scores overlay nodes that are new or whose content changed, and places them among the store's hits.
 *
 * Placement: an overlay node's score cannot come from the store's index (it is not in it), so the
 * overlay nodes that match the query are ranked together with the store's hits in a small index
 * built over just those documents, and each is inserted into the store's ranking at the rank it
 * has there among the store's hits. The store's own order is never changed; an exact key or type
 * match still comes first. The small index's statistics differ from the whole graph's, so the
 * placement of overlay nodes is an approximation (documented in docs/embeddings.md), never a loss:
 * a matching overlay node is always a candidate.
 */
export async function searchNodesWithOverlay(
  base: LexicalSearchBase,
  overlay: GraphOverlay,
  graphKey: string,
  query: string,
  maxResults: number,
): Promise<ScoredNode[]> {
  if (maxResults <= 0) return [];
  const extra = Math.min(MAX_EXTRA_HITS, overlay.nodes.size + overlay.deletedNodes.size);
  const [storeHits, configs] = await Promise.all([base.searchNodes(graphKey, query, maxResults + extra), base.getNodeConfigs()]);

  const kept: ScoredNode[] = [];
  const keptKeys = new Set<string>();
  for (const hit of storeHits) {
    const key = hit.node._key;
    if (overlay.deletedNodes.has(key)) continue;
    const live = overlay.nodes.get(key);
    if (live && hasNodeContentChanged(hit.node, live)) continue;
    kept.push(live ? { node: live, score: hit.score } : hit);
    keptKeys.add(key);
  }

  const overlayIndex = indexOfOverlay(overlay, configs);
  const candidates = overlayIndex
    .search(query, overlay.nodes.size)
    .map((hit) => overlay.nodes.get(hit.nodeKey) as GraphNode)
    .filter((node) => node !== undefined && !keptKeys.has(node._key));
  if (candidates.length === 0) return kept.slice(0, maxResults);

  // Only the store hits that can still be returned compete with the overlay's candidates.
  const competitors = kept.slice(0, maxResults);
  const union = NodeSearchIndex.build([...competitors.map((hit) => hit.node), ...candidates], configs);
  const localScore = new Map(union.search(query, competitors.length + candidates.length).map((hit) => [hit.nodeKey, hit.score]));
  return placeAmong(competitors, candidates, localScore, maxResults);
}

/**
 * Merges the candidates into the store's ranking: a candidate goes right before the first store hit
 * it beats in the local ranking (ties: after), with that hit's score, so scores stay best first.
 */
function placeAmong(
  ranked: ScoredNode[],
  candidates: GraphNode[],
  localScore: Map<string, number>,
  maxResults: number,
): ScoredNode[] {
  const storeLocal = ranked.map((hit) => localScore.get(hit.node._key) ?? 0);
  const placed = candidates
    .map((node) => {
      const score = localScore.get(node._key) ?? 0;
      return { node, local: score, rank: storeLocal.filter((local) => local >= score).length };
    })
    .filter((candidate) => candidate.local > 0)
    .sort((left, right) => left.rank - right.rank || right.local - left.local);

  const result: ScoredNode[] = [];
  let next = 0;
  for (let index = 0; index <= ranked.length && result.length < maxResults; index += 1) {
    while (next < placed.length && placed[next].rank === index && result.length < maxResults) {
      const score = index < ranked.length ? ranked[index].score : index > 0 ? ranked[index - 1].score : placed[next].local;
      result.push({ node: placed[next].node, score });
      next += 1;
    }
    if (index < ranked.length && result.length < maxResults) result.push(ranked[index]);
  }
  return result;
}

/** The overlay's own index (which overlay nodes match a query at all), rebuilt when the overlay or the configs change. */
function indexOfOverlay(overlay: GraphOverlay, configs: NodeTypeConfig[]): NodeSearchIndex {
  const configsFingerprint = configs.map((config) => `${config._key}\u0001${config.displayName ?? ''}\u0001${config.description ?? ''}`).join('\u0002');
  const cached = overlayIndexes.get(overlay);
  if (cached && cached.version === overlay.version && cached.configsFingerprint === configsFingerprint) return cached.index;
  const index = NodeSearchIndex.build(overlay.nodes.values(), configs);
  overlayIndexes.set(overlay, { version: overlay.version, configsFingerprint, index });
  return index;
}
