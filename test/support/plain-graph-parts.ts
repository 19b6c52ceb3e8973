import type { GraphEdge, GraphNode } from '../../src/graph/graph.types';

/** A node of graph `g` with nothing but its key: for specs of ranking over neighbourhoods. */
export const plainNode = (key: string): GraphNode => ({
  _key: key,
  graphKey: 'g',
  type: 't',
  sheet: '0',
  posX: 0,
  posY: 0,
});

/** An edge of graph `g` from `source` to `target`, keyed `source-target`. */
export const plainEdge = (source: string, target: string): GraphEdge => ({
  _key: `${source}-${target}`,
  graphKey: 'g',
  sheet: '0',
  source,
  sourceHandle: '0',
  target,
  targetHandle: '0',
});
