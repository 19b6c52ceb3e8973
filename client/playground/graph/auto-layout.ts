import dagre from '@dagrejs/dagre';
import type { AutoLayout } from './graph-flow';

/**
 * Layered left-to-right layout (dagre), for a sheet whose stored positions cannot be used. The page loads this
 * module only then, so the usual page does not carry dagre.
 */
export const autoLayout: AutoLayout = (nodes, edges) => {
  const graph = new dagre.graphlib.Graph<object, { width: number; height: number; x?: number; y?: number }>();
  graph.setGraph({ rankdir: 'LR', nodesep: 40, ranksep: 80, marginx: 0, marginy: 0 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) graph.setNode(node.id, { width: node.width, height: node.height });
  for (const edge of edges)
    if (graph.hasNode(edge.source) && graph.hasNode(edge.target)) graph.setEdge(edge.source, edge.target);
  dagre.layout(graph);
  // dagre places centres; xyflow positions are top-left corners.
  return new Map(
    nodes.map((node) => {
      const { x = 0, y = 0 } = graph.node(node.id);
      return [node.id, { x: x - node.width / 2, y: y - node.height / 2 }];
    }),
  );
};
