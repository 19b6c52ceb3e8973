import { FieldProblem } from '../../errors/validation-problems';
import { DeclaredHandles, declaredHandles, edgeEndpointProblem } from '../edge-endpoint.rule';
import { GraphDataSource } from '../graph-data-source';
import { Graph, GraphNode } from '../graph.types';
import { LiveGraphChanges } from '../overlay/live-graph-changes';

/** Where each upserted key sits in the request body (its last occurrence), to name fields as the client sent them. */
export interface FeedBodyPositions {
  upsertNodes: ReadonlyMap<string, number>;
  upsertEdges: ReadonlyMap<string, number>;
}

/**
 * The graph import's integrity rules (graph-import.validator.ts) applied to one batch of the change
 * feed, against the graph as it will read once the batch is applied (`source`: the store, seen
 * through the live overlay for unsaved changes; then the batch's own upserts and deletions):
 *  - every upserted node's and edge's sheet is a key of the graph's sheetsList;
 *  - every upserted edge's source and target exist, and when such a node declares handles, the
 *    edge names one of its handles of the right direction.
 * So the overlay never holds an edge that an import of the exported graph would refuse.
 * Lists every problem, as the import does; empty when the batch is sound.
 */
export async function checkFeedIntegrity(
  source: GraphDataSource,
  graph: Graph,
  changes: LiveGraphChanges,
  positions: FeedBodyPositions,
): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  const sheets = graph.sheetsList ?? {};
  const add = (field: string, problem: string) => problems.push({ field, problems: [problem] });

  for (const node of changes.upsertNodes) {
    if (!Object.prototype.hasOwnProperty.call(sheets, node.sheet)) {
      add(
        `upsertNodes.${positions.upsertNodes.get(node._key)}.sheet`,
        `sheet "${node.sheet}" is not in graph.sheetsList`,
      );
    }
  }

  const handlesByNode = await endpointsAfter(source, graph._key, changes);
  for (const edge of changes.upsertEdges) {
    const at = `upsertEdges.${positions.upsertEdges.get(edge._key)}`;
    if (!Object.prototype.hasOwnProperty.call(sheets, edge.sheet))
      add(`${at}.sheet`, `sheet "${edge.sheet}" is not in graph.sheetsList`);
    for (const end of ['source', 'target'] as const) {
      const broken = edgeEndpointProblem(edge, end, handlesByNode);
      if (broken) add(`${at}.${broken.field}`, broken.problem);
    }
  }
  return problems;
}

/** The declared handles of every node the batch's edges touch, as they will be after the batch; absent nodes are left out. */
async function endpointsAfter(
  source: GraphDataSource,
  graphKey: string,
  changes: LiveGraphChanges,
): Promise<Map<string, DeclaredHandles>> {
  const upserted = new Map<string, GraphNode>(changes.upsertNodes.map((node) => [node._key, node]));
  const deleted = new Set(changes.deleteNodes);
  const wanted = new Set<string>();
  for (const edge of changes.upsertEdges) {
    for (const key of [edge.source, edge.target]) if (!upserted.has(key) && !deleted.has(key)) wanted.add(key);
  }
  const stored = wanted.size > 0 ? await source.getNodesByKeys(graphKey, [...wanted]) : [];
  const handlesByNode = new Map<string, DeclaredHandles>();
  for (const node of [...stored, ...upserted.values()]) handlesByNode.set(node._key, declaredHandles(node.handles));
  return handlesByNode;
}
