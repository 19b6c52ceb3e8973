import { ScoredNode } from '../graph-data-source';
import { GraphNode } from '../graph.types';
import { hasNodeContentChanged } from '../node-content';
import { GraphOverlay } from './graph-overlay';

/** What the overlay's nodes are, compared with the store's: computed once per overlay version. */
export interface OverlayNodeChanges {
  version: number;
  /** Upserted nodes that are new or whose content differs from the store's: the store cannot score them. */
  changed: ReadonlySet<string>;
  /** Store nodes the overlay hides from the store's rankings: deleted, or changed. */
  hiddenInStore: number;
}

/** Most store hits asked for beyond maxResults, to make up for hits the overlay hides. */
const MAX_EXTRA_HITS = 1_000;

const cache = new WeakMap<GraphOverlay, OverlayNodeChanges>();

/** Reads the stored versions of the overlay's upserted nodes (one batch query) once per overlay version. */
export async function changedNodesOf(
  base: { getNodesByKeys(graphKey: string, nodeKeys: string[]): Promise<GraphNode[]> },
  overlay: GraphOverlay,
  graphKey: string,
): Promise<OverlayNodeChanges> {
  const cached = cache.get(overlay);
  if (cached && cached.version === overlay.version) return cached;
  const version = overlay.version;
  const stored = new Map(
    (await base.getNodesByKeys(graphKey, [...overlay.nodes.keys()])).map((node) => [node._key, node]),
  );
  const changed = new Set<string>();
  let hiddenInStore = overlay.deletedNodes.size;
  for (const [key, live] of overlay.nodes) {
    const before = stored.get(key);
    if (!before) changed.add(key);
    else if (hasNodeContentChanged(before, live)) {
      changed.add(key);
      hiddenInStore += 1;
    }
  }
  // A change that arrived while the store was read leaves this entry one version behind: the next call recomputes.
  const entry = { version, changed, hiddenInStore };
  cache.set(overlay, entry);
  return entry;
}

/**
 * Asks a store ranking for enough hits that `maxResults` remain once the overlay hides some:
 * first maxResults plus up to maxResults more, and only when that page was full yet too few
 * hits stayed visible, once more with room for every hidden node.
 */
export async function searchPastHidden(
  hiddenInStore: number,
  maxResults: number,
  search: (limit: number) => Promise<ScoredNode[]>,
  visibleCount: (hits: ScoredNode[]) => number,
): Promise<ScoredNode[]> {
  const hidden = Math.min(MAX_EXTRA_HITS, hiddenInStore);
  const firstLimit = maxResults + Math.min(hidden, maxResults);
  const hits = await search(firstLimit);
  if (hidden <= maxResults || hits.length < firstLimit || visibleCount(hits) >= maxResults) return hits;
  return search(maxResults + hidden);
}
