import { ScoredNode, SearchScope } from '../graph-data-source';
import { GraphNode, NodeTypeConfig } from '../graph.types';
import { hasNodeContentChanged } from '../node-content';
import { NodeSearchIndex } from '../search/node-search.index';
import { GraphOverlay } from './graph-overlay';
import { changedNodesOf, searchPastHidden } from './overlay-changed-nodes';

/** What the overlay search needs from the store: its ranked BM25 hits, documents by key and the workspace's node configs. */
export interface LexicalSearchBase {
  searchNodes(graphKey: string, query: string, maxResults: number, scope?: SearchScope): Promise<ScoredNode[]>;
  getNodesByKeys(graphKey: string, nodeKeys: string[]): Promise<GraphNode[]>;
  getNodeConfigs(): Promise<NodeTypeConfig[]>;
}

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
 * overlay nodes that match the query (at most maxResults, best first by the overlay's own index)
 * are ranked together with the store's hits in a small index built over just those documents, and
 * each is inserted into the store's ranking at the rank it has there among the store's hits. The
 * store's own order is never changed; an exact key or type match still comes first. The small
 * index's statistics differ from the whole graph's, so the placement of overlay nodes is an
 * approximation, never a loss: a matching overlay node is always a candidate.
 *
 * Cost per search: one store search (maxResults plus a few, more only when hidden hits leave too
 * few), and a small index over at most 2 × maxResults documents when overlay nodes match. Which
 * overlay nodes changed content, and the overlay's own index, are computed once per overlay version.
 */
export async function searchNodesWithOverlay(
  base: LexicalSearchBase,
  overlay: GraphOverlay,
  graphKey: string,
  query: string,
  maxResults: number,
  scope: SearchScope = {},
): Promise<ScoredNode[]> {
  if (maxResults <= 0) return [];
  const [configs, changes] = await Promise.all([base.getNodeConfigs(), changedNodesOf(base, overlay, graphKey)]);
  const storeHits = await searchPastHidden(
    changes.hiddenInStore,
    maxResults,
    (limit) => base.searchNodes(graphKey, query, limit, scope),
    (hits) => keepVisible(hits, overlay).kept.length,
  );
  const visible = keepVisible(storeHits, overlay);
  const { dropped } = visible;
  // A node the overlay moved to another sheet has left the scope.
  const kept = scope.sheet === undefined ? visible.kept : visible.kept.filter((hit) => hit.node.sheet === scope.sheet);
  const keptKeys = new Set(kept.map((hit) => hit.node._key));

  const candidates = indexOfOverlay(overlay, configs)
    .search(query, overlay.nodes.size)
    .filter((hit) => !keptKeys.has(hit.nodeKey) && (changes.changed.has(hit.nodeKey) || dropped.has(hit.nodeKey)))
    .map((hit) => overlay.nodes.get(hit.nodeKey) as GraphNode)
    .filter((node) => scope.sheet === undefined || node.sheet === scope.sheet)
    .slice(0, maxResults);
  if (candidates.length === 0) return kept.slice(0, maxResults);

  // Only the store hits that can still be returned compete with the overlay's candidates.
  const competitors = kept.slice(0, maxResults);
  const union = NodeSearchIndex.build([...competitors.map((hit) => hit.node), ...candidates], configs);
  const localScore = new Map(
    union.search(query, competitors.length + candidates.length).map((hit) => [hit.nodeKey, hit.score]),
  );
  return placeAmong(competitors, candidates, localScore, maxResults);
}

/** Store hits the overlay leaves visible (with the overlay's document for moved nodes), and the keys it dropped as changed. */
function keepVisible(storeHits: ScoredNode[], overlay: GraphOverlay): { kept: ScoredNode[]; dropped: Set<string> } {
  const kept: ScoredNode[] = [];
  const dropped = new Set<string>();
  for (const hit of storeHits) {
    const key = hit.node._key;
    if (overlay.deletedNodes.has(key)) continue;
    const live = overlay.nodes.get(key);
    if (live && hasNodeContentChanged(hit.node, live)) {
      dropped.add(key);
      continue;
    }
    kept.push(live ? { node: live, score: hit.score } : hit);
  }
  return { kept, dropped };
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
      const score =
        index < ranked.length ? ranked[index].score : index > 0 ? ranked[index - 1].score : placed[next].local;
      result.push({ node: placed[next].node, score });
      next += 1;
    }
    if (index < ranked.length && result.length < maxResults) result.push(ranked[index]);
  }
  return result;
}

/** The overlay's own index (which overlay nodes match a query at all), rebuilt when the overlay or the configs change. */
function indexOfOverlay(overlay: GraphOverlay, configs: NodeTypeConfig[]): NodeSearchIndex {
  const configsFingerprint = configs
    .map((config) => `${config._key}\u0001${config.displayName ?? ''}\u0001${config.description ?? ''}`)
    .join('\u0002');
  const cached = overlayIndexes.get(overlay);
  if (cached && cached.version === overlay.version && cached.configsFingerprint === configsFingerprint)
    return cached.index;
  const index = NodeSearchIndex.build(overlay.nodes.values(), configs);
  overlayIndexes.set(overlay, { version: overlay.version, configsFingerprint, index });
  return index;
}
