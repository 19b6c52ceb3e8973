import { AppError } from '../../errors/app-error';
import { GraphEdge, GraphNode } from '../graph.types';
import { LiveGraphChanges } from '../overlay/live-graph-changes';

/** The change feed's body once validated by its DTO (class instances, optional lists). */
export interface RawGraphChanges {
  upsertNodes?: object[];
  deleteNodes?: string[];
  upsertEdges?: object[];
  deleteEdges?: string[];
}

/** Vectors belong to the store and the embedding write path, never to the feed. */
const EMBEDDING_FIELDS = ['embedding', 'embeddingModel', 'embeddingHash'] as const;

/**
 * Turns a validated feed body into plain documents of this graph: `graphKey` filled in (a different
 * one is a bad request), embedding fields dropped, each key once (the last occurrence wins), and no
 * key both upserted and deleted (bad request).
 */
export function normalizeLiveChanges(graphKey: string, raw: RawGraphChanges): LiveGraphChanges {
  const upsertNodes = lastByKey(
    (raw.upsertNodes ?? []).map((dto, index) => toDocument<GraphNode>(dto, graphKey, `upsertNodes[${index}]`)),
  );
  const upsertEdges = lastByKey(
    (raw.upsertEdges ?? []).map((dto, index) => toDocument<GraphEdge>(dto, graphKey, `upsertEdges[${index}]`)),
  );
  for (const node of upsertNodes) for (const field of EMBEDDING_FIELDS) delete node[field];
  const deleteNodes = [...new Set(raw.deleteNodes ?? [])];
  const deleteEdges = [...new Set(raw.deleteEdges ?? [])];

  const deletedNodes = new Set(deleteNodes);
  const deletedEdges = new Set(deleteEdges);
  const node = upsertNodes.find((candidate) => deletedNodes.has(candidate._key));
  if (node)
    throw AppError.badRequest(`Node "${node._key}" is both upserted and deleted in one change`, { nodeKey: node._key });
  const edge = upsertEdges.find((candidate) => deletedEdges.has(candidate._key));
  if (edge)
    throw AppError.badRequest(`Edge "${edge._key}" is both upserted and deleted in one change`, { edgeKey: edge._key });
  return { upsertNodes, deleteNodes, upsertEdges, deleteEdges };
}

/** A plain JSON copy of the DTO (no class prototypes, no undefined fields) with this graph's key. */
function toDocument<T extends { _key: string; graphKey: string }>(dto: object, graphKey: string, field: string): T {
  const document = JSON.parse(JSON.stringify(dto)) as T;
  if (document.graphKey !== undefined && document.graphKey !== graphKey) {
    throw AppError.badRequest(
      `${field}.graphKey "${document.graphKey}" differs from the graph of the path "${graphKey}"`,
      {
        field: `${field}.graphKey`,
      },
    );
  }
  document.graphKey = graphKey;
  return document;
}

function lastByKey<T extends { _key: string }>(documents: T[]): T[] {
  const byKey = new Map<string, T>();
  for (const document of documents) {
    byKey.delete(document._key);
    byKey.set(document._key, document);
  }
  return [...byKey.values()];
}
