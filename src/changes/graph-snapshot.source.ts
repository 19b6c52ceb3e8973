import type { GraphDataSource } from '../graph/graph-data-source';
import type { GraphEdge } from '../graph/graph.types';
import type { SnapshotSource } from './graph-snapshot';

/**
 * A graph's documents read through a data source: the store's alone, or the user's view of them (the live overlay on
 * the store). The port has no edge-by-key lookup: edges named by key are found among the graph's edges.
 */
export function dataSourceSnapshots(dataSource: GraphDataSource, graphKey: string): SnapshotSource {
  return {
    nodes: (keys) => dataSource.getNodesByKeys(graphKey, keys),
    edges: async (keys) => {
      const wanted = new Set(keys);
      return (await dataSource.getEdges(graphKey)).filter((edge) => wanted.has(edge._key));
    },
    edgesOfNodes: async (keys) => {
      const found = new Map<string, GraphEdge>();
      for (const edges of await Promise.all(keys.map((key) => dataSource.getEdgesOfNode(graphKey, key, 'any'))))
        for (const edge of edges) found.set(edge._key, edge);
      return [...found.values()];
    },
  };
}
