import { Graph, GraphEdge, GraphNode, NodeTypeConfig } from '../graph.types';
import { collectStrings } from '../search/node-search-fields';
import { ARANGO_GRAPH_NAMES, EMBEDDING_FIELDS, SEARCH_DATA_FIELD } from './arango-graph.names';

/** Bound on the flattened `data` text stored for search (same bound as the embedded store's index). */
const MAX_SEARCH_DATA_CHARS = 10_000;

/** Server-managed attributes never shown to callers (`_key` is converted, not dropped). */
const ARANGO_META_FIELDS = ['_id', '_rev', '_from', '_to'] as const;

type StoredDocument = Record<string, unknown>;

/**
 * Conversion between the canonical shapes of graph.types.ts and the documents Nodius keeps in ArangoDB.
 * Node and edge documents live under the composite key `{graphKey}-{localKey}` (Nodius's layout) and
 * edges point at `nodius_nodes/{graphKey}-{localKey}`; callers only ever see local keys. Unknown extra
 * fields are kept both ways: Nodius stores more than this service reads.
 */
export class ArangoDocumentMapper {
  static compositeKey(graphKey: string, localKey: string): string {
    return `${graphKey}-${localKey}`;
  }

  static nodeId(graphKey: string, localKey: string): string {
    return `${ARANGO_GRAPH_NAMES.nodes}/${ArangoDocumentMapper.compositeKey(graphKey, localKey)}`;
  }

  /** `{graphKey}-{localKey}` → `localKey`; a key without the prefix (not written by Nodius's scheme) is kept as is. */
  static localKey(graphKey: string, storedKey: string): string {
    const prefix = `${graphKey}-`;
    return storedKey.startsWith(prefix) ? storedKey.slice(prefix.length) : storedKey;
  }

  static toGraph(doc: StoredDocument): Graph {
    return withoutFields(doc, ARANGO_META_FIELDS) as Graph;
  }

  static toNodeConfig(doc: StoredDocument): NodeTypeConfig {
    return withoutFields(doc, ARANGO_META_FIELDS) as NodeTypeConfig;
  }

  /** A stored node as callers see it: local key, no Arango metadata, no vector, no search helper field. */
  static toNode(doc: StoredDocument, graphKey: string, options: { keepEmbeddingState?: boolean } = {}): GraphNode {
    const dropped: string[] = [...ARANGO_META_FIELDS, SEARCH_DATA_FIELD, 'embedding'];
    if (!options.keepEmbeddingState) dropped.push('embeddingModel', 'embeddingHash');
    const node = withoutFields(doc, dropped);
    return { ...node, _key: ArangoDocumentMapper.localKey(graphKey, String(doc._key)), graphKey } as GraphNode;
  }

  /**
   * A stored edge as callers see it. Endpoints come from `_from`/`_to` when they carry this graph's
   * prefix (unambiguous, and what traversals follow); otherwise from the stored `source`/`target`,
   * which Nodius may have written as composite or local keys.
   */
  static toEdge(doc: StoredDocument, graphKey: string): GraphEdge {
    const edge = withoutFields(doc, ARANGO_META_FIELDS);
    return {
      ...edge,
      _key: ArangoDocumentMapper.localKey(graphKey, String(doc._key)),
      graphKey,
      source: endpoint(doc._from, doc.source, graphKey),
      target: endpoint(doc._to, doc.target, graphKey),
    } as GraphEdge;
  }

  /**
   * The document stored for a node: composite key, the graph's key, and the flattened `data` text for
   * search. Embedding fields are written only as a whole carried vector (a non-empty `embedding` with
   * its `embeddingModel`, as in a Nodius export); anything less is dropped, as the embedded store does.
   */
  static toNodeDocument(graphKey: string, node: GraphNode): StoredDocument {
    const dropped: string[] = [...ARANGO_META_FIELDS, SEARCH_DATA_FIELD];
    if (!carriesVector(node)) dropped.push(...EMBEDDING_FIELDS);
    const doc = withoutFields(node, dropped);
    const searchData = collectStrings(node.data, MAX_SEARCH_DATA_CHARS);
    return {
      ...doc,
      _key: ArangoDocumentMapper.compositeKey(graphKey, node._key),
      graphKey,
      ...(searchData ? { [SEARCH_DATA_FIELD]: searchData } : {}),
    };
  }

  /** The document stored for an edge: composite key, `_from`/`_to` built from it, local `source`/`target`. */
  static toEdgeDocument(graphKey: string, edge: GraphEdge): StoredDocument {
    const doc = withoutFields(edge, ARANGO_META_FIELDS);
    return {
      ...doc,
      _key: ArangoDocumentMapper.compositeKey(graphKey, edge._key),
      graphKey,
      _from: ArangoDocumentMapper.nodeId(graphKey, edge.source),
      _to: ArangoDocumentMapper.nodeId(graphKey, edge.target),
    };
  }

  static toGraphDocument(workspace: string, graph: Graph): StoredDocument {
    return { ...withoutFields(graph, ARANGO_META_FIELDS), workspace };
  }

  static toNodeConfigDocument(workspace: string, config: NodeTypeConfig): StoredDocument {
    return { ...withoutFields(config, ARANGO_META_FIELDS), workspace };
  }

  /** A node as exported (GET /graphs/:key): no vector nor what it was computed from. */
  static toExportedNode(node: GraphNode): GraphNode {
    return withoutFields(node, EMBEDDING_FIELDS) as GraphNode;
  }
}

function carriesVector(node: GraphNode): boolean {
  return (
    Array.isArray(node.embedding) &&
    node.embedding.length > 0 &&
    typeof node.embeddingModel === 'string' &&
    node.embeddingModel.length > 0
  );
}

function withoutFields(source: object, fields: readonly string[]): StoredDocument {
  const copy: StoredDocument = { ...(source as StoredDocument) };
  for (const field of fields) delete copy[field];
  return copy;
}

function endpoint(handle: unknown, stored: unknown, graphKey: string): string {
  const prefix = `${ARANGO_GRAPH_NAMES.nodes}/${graphKey}-`;
  if (typeof handle === 'string' && handle.startsWith(prefix)) return handle.slice(prefix.length);
  return typeof stored === 'string' ? ArangoDocumentMapper.localKey(graphKey, stored) : '';
}
