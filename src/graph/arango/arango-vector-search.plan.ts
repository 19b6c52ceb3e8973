import { VectorIndexInfo } from './arango-capabilities';

/**
 * Below this many nodes in the graph, vector search scans the graph's vectors exactly instead of
 * going through the vector index: the scan reads only the graph's nodes (persistent index on
 * `graphKey`), is exact, and stays cheap; the approximate search over a collection-wide index finds
 * few of a small graph's nodes in the clusters it probes.
 */
export const DEFAULT_VECTOR_EXACT_SCAN_BELOW = 5_000;

/** Candidates the probed clusters should hold for each result asked, if the graph's vectors were spread evenly. */
const CANDIDATES_PER_RESULT = 4;
/** Centroids probed when the index does not say how many it has. */
const PROBES_WHEN_LISTS_UNKNOWN = 32;

export type VectorSearchPlan = { mode: 'exact' } | { mode: 'indexed'; nProbe: number };

/**
 * How to run one vector search of a graph holding `graphNodes` nodes for `limit` results.
 *
 * The index partitions the whole collection (every graph) into `nLists` clusters and a query only
 * looks into `nProbe` of them; the graph filter is applied inside those. A graph's nodes spread over
 * all clusters, so about `nProbe / nLists × graphNodes` of them are seen: nProbe is chosen so that
 * this is CANDIDATES_PER_RESULT × limit, at least √nLists (the usual recall floor of IVF indexes) and
 * the index's own default, at most nLists (every cluster: exact over the index).
 */
export function planVectorSearch(
  index: VectorIndexInfo,
  graphNodes: number,
  limit: number,
  exactScanBelow = DEFAULT_VECTOR_EXACT_SCAN_BELOW,
): VectorSearchPlan {
  if (graphNodes < exactScanBelow) return { mode: 'exact' };
  if (index.nLists === null)
    return { mode: 'indexed', nProbe: Math.max(index.defaultNProbe, PROBES_WHEN_LISTS_UNKNOWN) };
  const wanted = Math.ceil((index.nLists * CANDIDATES_PER_RESULT * limit) / Math.max(1, graphNodes));
  const floor = Math.max(index.defaultNProbe, Math.ceil(Math.sqrt(index.nLists)));
  return { mode: 'indexed', nProbe: Math.min(index.nLists, Math.max(floor, wanted)) };
}
