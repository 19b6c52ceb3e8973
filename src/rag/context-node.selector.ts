import { GraphNode } from '../graph/graph.types';
import { RelevantNode } from '../conversation/graph-rag-context';

export interface SelectedNode {
  node: GraphNode;
  origin: RelevantNode['origin'];
  score?: number;
}

export interface ContextNodeCandidates {
  /** Pinned by the user, in their order. */
  mentions: GraphNode[];
  /** Search hits, best first. */
  hits: Array<{ node: GraphNode; score: number }>;
  /** Nodes reached by the expansion, nearest first. */
  neighbors: GraphNode[];
  maxNodes: number;
  /**
   * Slots kept for neighbours when the hits alone would fill the context: the structure around the
   * best hits (what feeds them, what they feed) is worth more than the tail of weak lexical matches.
   */
  neighborSlots: number;
}

/**
 * The two nearest neighbours come right after the 8 best hits, in the first ten places (what the
 * model reads first): the next step of the best match is often the answer ("what happens after",
 * a node described in other words next to the one named), more often than the 9th and 10th hits.
 */
const HITS_BEFORE_EARLY_NEIGHBORS = 8;
const EARLY_NEIGHBORS = 2;

/**
 * Chooses at most maxNodes nodes and ranks them: mentions, then the chosen search hits best first
 * (the two nearest neighbours after the 8th of them), then neighbours nearest first. A neighbour
 * that is also a hit counts as a hit. Slots left by a small neighbourhood go back to the next hits.
 */
export function selectContextNodes(candidates: ContextNodeCandidates): SelectedNode[] {
  const { maxNodes } = candidates;
  const taken = new Set<string>();
  const mentions: SelectedNode[] = [];
  for (const node of candidates.mentions) {
    if (taken.size >= maxNodes || taken.has(node._key)) continue;
    taken.add(node._key);
    mentions.push({ node, origin: 'mention' });
  }

  const hits = candidates.hits.filter((hit) => !taken.has(hit.node._key));
  const hitRank = new Map(hits.map((hit, index) => [hit.node._key, index]));
  const quota = maxNodes - taken.size;
  const reachable = candidates.neighbors.filter((node) => !taken.has(node._key));
  const reserve = Math.min(
    Math.max(0, candidates.neighborSlots),
    reachable.filter((node) => (hitRank.get(node._key) ?? Infinity) >= quota).length,
  );

  const chosenHits = new Set<number>();
  const neighbors: SelectedNode[] = [];
  const takeHit = (index: number) => {
    chosenHits.add(index);
    taken.add(hits[index].node._key);
  };
  for (let index = 0; index < hits.length && index < quota - reserve; index++) takeHit(index);
  for (const node of reachable) {
    if (taken.size >= maxNodes) break;
    if (taken.has(node._key)) continue;
    const rank = hitRank.get(node._key);
    if (rank !== undefined) takeHit(rank);
    else {
      taken.add(node._key);
      neighbors.push({ node, origin: 'neighbor' });
    }
  }
  for (let index = 0; index < hits.length && taken.size < maxNodes; index++) if (!chosenHits.has(index)) takeHit(index);

  const chosen = [...chosenHits].sort((a, b) => a - b).map((index) => ({ ...hits[index], origin: 'search' as const }));
  return [
    ...mentions,
    ...chosen.slice(0, HITS_BEFORE_EARLY_NEIGHBORS),
    ...neighbors.slice(0, EARLY_NEIGHBORS),
    ...chosen.slice(HITS_BEFORE_EARLY_NEIGHBORS),
    ...neighbors.slice(EARLY_NEIGHBORS),
  ];
}
