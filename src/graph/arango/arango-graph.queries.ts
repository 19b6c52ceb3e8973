import { aql } from 'arangojs';
import { AqlQuery } from 'arangojs/aql';
import { DocumentCollection, EdgeCollection } from 'arangojs/collections';
import { View } from 'arangojs/views';
import { EdgeDirection } from '../graph-data-source';
import { ARANGO_GRAPH_NAMES, EMBEDDING_FIELDS, SEARCH_DATA_FIELD } from './arango-graph.names';

/** The collections and view the queries run against (arangojs objects: they become `@@` bind variables). */
export interface ArangoGraphCollections {
  graphs: DocumentCollection;
  nodes: DocumentCollection;
  edges: EdgeCollection;
  nodeConfigs: DocumentCollection;
  searchView: View;
}

/** Never sent to callers: server metadata, the vector (large) and this service's search helper field. */
const HIDDEN_NODE_FIELDS = ['_id', '_rev', 'embedding', 'embeddingModel', 'embeddingHash', SEARCH_DATA_FIELD];
/** Edges keep `_from`/`_to` until the mapper has read their endpoints from them. */
const HIDDEN_EDGE_FIELDS = ['_id', '_rev'];
const HIDDEN_META_FIELDS = ['_id', '_rev'];

export interface LexicalSearchParams {
  workspace: string;
  graphKey: string;
  query: string;
  /** How many BM25 hits are ranked again by exact-match tier (see ArangoGraphDataSource.searchNodes). */
  candidates: number;
  /** Waits for the view to index recent writes (tests); off in production, where ~1 s of lag is fine. */
  waitForSync: boolean;
  /** Only nodes of this sheet. */
  sheet?: string;
}

export interface VectorSearchParams {
  workspace: string;
  graphKey: string;
  vector: number[];
  model: string;
  minScore: number;
  limit: number;
  /** Only this sheet's nodes. */
  sheet?: string;
}

export interface ChangeSetStateParams {
  workspace: string;
  graphKey: string;
  /** Composite keys of every node the change set names (created, deleted, edited, edge ends). */
  nodeKeys: string[];
  /** Composite keys of every edge the change set names (created, deleted). */
  edgeKeys: string[];
  /** `nodius_nodes/...` ids whose edges are read too (`touching`): a caller that records what a deletion removes. */
  touchingNodeIds?: string[];
}

/** A node document to replace, and whether its stored vector stays (its content did not change). */
export interface NodeReplacement {
  document: { _key: string } & Record<string, unknown>;
  keepVector: boolean;
}

/**
 * Every AQL query of the ArangoDB graph store, in one place. Each method returns an `AqlQuery` built
 * with the `aql` template only: every value (keys, workspace, query text, vectors) becomes a bind
 * variable and every collection a `@@` bind variable; nothing is concatenated into the text.
 *
 * Nodes and edges have no workspace field: every query that reads them starts with the workspace
 * guard (the graph must exist in the caller's workspace), so a graph of another workspace yields nothing.
 */
export class ArangoGraphQueries {
  constructor(private readonly c: ArangoGraphCollections) {}

  // ── reads ────────────────────────────────────────────────────────────────

  graph(workspace: string, graphKey: string): AqlQuery {
    return aql`
      FOR g IN ${this.c.graphs}
        FILTER g._key == ${graphKey} AND g.workspace == ${workspace}
        LIMIT 1
        RETURN UNSET(g, ${HIDDEN_META_FIELDS})`;
  }

  nodes(workspace: string, graphKey: string, sheet?: string, limit?: number): AqlQuery {
    return aql`
      ${this.ownerGuard(workspace, graphKey)}
      FOR n IN ${this.c.nodes}
        FILTER n.graphKey == ${graphKey} ${sheet === undefined ? aql`` : aql`AND n.sheet == ${sheet}`}
        SORT n._key
        ${limit === undefined ? aql`` : aql`LIMIT ${limit}`}
        RETURN UNSET(n, ${HIDDEN_NODE_FIELDS})`;
  }

  nodesByKeys(workspace: string, graphKey: string, compositeKeys: string[]): AqlQuery {
    return aql`
      ${this.ownerGuard(workspace, graphKey)}
      FOR n IN ${this.c.nodes}
        FILTER n._key IN ${compositeKeys} AND n.graphKey == ${graphKey}
        RETURN UNSET(n, ${HIDDEN_NODE_FIELDS})`;
  }

  edges(workspace: string, graphKey: string, sheet?: string): AqlQuery {
    return aql`
      ${this.ownerGuard(workspace, graphKey)}
      FOR e IN ${this.c.edges}
        FILTER e.graphKey == ${graphKey} ${sheet === undefined ? aql`` : aql`AND e.sheet == ${sheet}`}
        SORT e._key
        RETURN UNSET(e, ${HIDDEN_EDGE_FIELDS})`;
  }

  /** `out`: edges leaving the node (edge index on `_from`); `in`: arriving (`_to`); `any`: both. */
  edgesOfNode(workspace: string, graphKey: string, nodeId: string, direction: EdgeDirection): AqlQuery {
    const touching =
      direction === 'out'
        ? aql`e._from == ${nodeId}`
        : direction === 'in'
          ? aql`e._to == ${nodeId}`
          : aql`(e._from == ${nodeId} OR e._to == ${nodeId})`;
    return aql`
      ${this.ownerGuard(workspace, graphKey)}
      FOR e IN ${this.c.edges}
        FILTER ${touching} AND e.graphKey == ${graphKey}
        SORT e._key
        RETURN UNSET(e, ${HIDDEN_EDGE_FIELDS})`;
  }

  nodeConfigs(workspace: string): AqlQuery {
    return aql`
      FOR c IN ${this.c.nodeConfigs}
        FILTER c.workspace == ${workspace}
        SORT c._key
        RETURN UNSET(c, ${HIDDEN_META_FIELDS})`;
  }

  /**
   * BFS from the start node, up to `depth` hops, each node once (uniqueVertices global). Returns one
   * document `{ start, reached: [{ id, node, depth }], edges }` where `edges` are the graph's edges
   * whose both ends were reached (the edges walked and those joining reached nodes). The direction
   * keyword cannot be a bind variable, so each direction is its own fixed query text.
   */
  neighborhood(
    workspace: string,
    graphKey: string,
    startKey: string,
    depth: number,
    direction: EdgeDirection,
  ): AqlQuery {
    const edges = this.c.edges;
    const traversal =
      direction === 'out'
        ? aql`FOR v, e, p IN 1..${depth} OUTBOUND start ${edges}`
        : direction === 'in'
          ? aql`FOR v, e, p IN 1..${depth} INBOUND start ${edges}`
          : aql`FOR v, e, p IN 1..${depth} ANY start ${edges}`;
    return aql`
      ${this.ownerGuard(workspace, graphKey)}
      LET start = FIRST(
        FOR n IN ${this.c.nodes}
          FILTER n._key == ${startKey} AND n.graphKey == ${graphKey}
          LIMIT 1
          RETURN n
      )
      FILTER start != null
      LET reached = (
        ${traversal}
          PRUNE v.graphKey != ${graphKey}
          OPTIONS { order: "bfs", uniqueVertices: "global" }
          FILTER v.graphKey == ${graphKey}
          RETURN { id: v._id, node: UNSET(v, ${HIDDEN_NODE_FIELDS}), depth: LENGTH(p.edges) }
      )
      LET ids = APPEND([start._id], reached[*].id)
      LET joining = (
        FOR e IN ${edges}
          FILTER e._from IN ids AND e._to IN ids AND e.graphKey == ${graphKey}
          SORT e._key
          RETURN UNSET(e, ${HIDDEN_EDGE_FIELDS})
      )
      RETURN { start: UNSET(start, ${HIDDEN_NODE_FIELDS}), reached: reached, edges: joining }`;
  }

  /**
   * BM25 through the ArangoSearch view. The query is analyzed server-side with the same analyzers as
   * the documents. Fields and weights follow the embedded store's index: key and type count most, then
   * the type's config (display name, description), `data` strings, process code. Every composite key
   * contains the graph key, so the graph key's own words are not matched against `_key`. `aiSearchData`
   * is SEARCH_DATA_FIELD (attribute names stay literal in the text for readability). Returns the
   * best `candidates` hits with their exact-match tier: 2 when the query names the node's local key,
   * 1 when it names its type or the type's display name.
   */
  lexicalSearch(params: LexicalSearchParams): AqlQuery {
    const { workspace, graphKey, query } = params;
    const identifier = ARANGO_GRAPH_NAMES.identifierAnalyzer;
    const prose = ARANGO_GRAPH_NAMES.proseAnalyzer;
    const searchOptions = params.waitForSync ? aql`OPTIONS { waitForSync: true }` : aql``;
    const sheetFilter = params.sheet === undefined ? aql`` : aql`FILTER n.sheet == ${params.sheet}`;
    return aql`
      ${this.ownerGuard(workspace, graphKey)}
      LET queryTerms = TOKENS(${query}, ${identifier})
      LET proseTerms = TOKENS(${query}, ${prose})
      LET keyTerms = MINUS(queryTerms, TOKENS(${graphKey}, ${identifier}))
      LET describedTypes = (
        FOR c IN ${this.c.nodeConfigs}
          FILTER c.workspace == ${workspace}
          FILTER LENGTH(INTERSECTION(TOKENS(CONCAT_SEPARATOR(" ", c.displayName, c.description), ${identifier}), queryTerms)) > 0
          RETURN c._key
      )
      LET namedTypes = (
        FOR c IN ${this.c.nodeConfigs}
          FILTER c.workspace == ${workspace} AND TOKENS(c.displayName, ${identifier}) == queryTerms
          RETURN c._key
      )
      FOR n IN ${this.c.searchView}
        SEARCH n.graphKey == ${graphKey} AND (
          BOOST(ANALYZER(n._key IN keyTerms, ${identifier}), 3)
          OR BOOST(ANALYZER(n.type IN queryTerms, ${identifier}), 3)
          OR BOOST(n.type IN describedTypes, 2)
          OR ANALYZER(n.aiSearchData IN queryTerms, ${identifier})
          OR BOOST(ANALYZER(n.process IN queryTerms, ${identifier}), 0.75)
          OR BOOST(ANALYZER(n.process IN proseTerms OR n.aiSearchData IN proseTerms, ${prose}), 0.5)
        )
        ${searchOptions}
        ${sheetFilter}
        LET score = BM25(n)
        FILTER score > 0
        SORT score DESC
        LIMIT ${params.candidates}
        LET localKey = SUBSTRING(n._key, ${graphKey.length + 1})
        LET tier = TOKENS(localKey, ${identifier}) == queryTerms ? 2
          : (TOKENS(n.type, ${identifier}) == queryTerms OR n.type IN namedTypes ? 1 : 0)
        RETURN { node: UNSET(n, ${HIDDEN_NODE_FIELDS}), score: score, tier: tier }`;
  }

  /** Exact cosine scan over the graph's vectors of one model (works on every server version). */
  vectorSearchExact(params: VectorSearchParams): AqlQuery {
    const { workspace, graphKey, vector } = params;
    return aql`
      ${this.ownerGuard(workspace, graphKey)}
      FOR n IN ${this.c.nodes}
        FILTER n.graphKey == ${graphKey} AND n.embeddingModel == ${params.model}
        ${params.sheet === undefined ? aql`` : aql`FILTER n.sheet == ${params.sheet}`}
        FILTER IS_ARRAY(n.embedding) AND LENGTH(n.embedding) == ${vector.length}
        LET score = COSINE_SIMILARITY(n.embedding, ${vector})
        FILTER score > ${params.minScore}
        SORT score DESC
        LIMIT ${params.limit}
        RETURN { node: UNSET(n, ${HIDDEN_NODE_FIELDS}), score: score }`;
  }

  /**
   * Approximate search through the vector index (ArangoDB 3.12.6+), probing `nProbe` clusters
   * (arango-vector-search.plan.ts; without it the index's defaultNProbe, 1 unless set, would look into
   * a single cluster). The search is its own subquery in the documented form, one FILTER between FOR
   * and SORT (applied during the index lookup, from the index's stored values when it has them),
   * then SORT by the similarity and LIMIT; the threshold is applied to the hits it returns.
   */
  vectorSearchIndexed(params: VectorSearchParams & { nProbe: number }): AqlQuery {
    const { workspace, graphKey, vector } = params;
    return aql`
      ${this.ownerGuard(workspace, graphKey)}
      LET hits = (
        FOR n IN ${this.c.nodes}
          FILTER n.graphKey == ${graphKey} AND n.embeddingModel == ${params.model}
          LET score = APPROX_NEAR_COSINE(n.embedding, ${vector}, { nProbe: ${params.nProbe} })
          SORT score DESC
          LIMIT ${params.limit}
          RETURN { node: UNSET(n, ${HIDDEN_NODE_FIELDS}), score: score }
      )
      FOR hit IN hits
        FILTER hit.score > ${params.minScore}
        RETURN hit`;
  }

  /** How many nodes the graph holds (covered by the `graphKey` index); nothing when it is not the workspace's. */
  graphNodeCount(workspace: string, graphKey: string): AqlQuery {
    return aql`
      ${this.ownerGuard(workspace, graphKey)}
      RETURN COUNT(FOR n IN ${this.c.nodes} FILTER n.graphKey == ${graphKey} RETURN 1)`;
  }

  /** One graph document at most: whether there is any, without reading (or sorting) the collection. */
  anyGraph(): AqlQuery {
    return aql`
      FOR g IN ${this.c.graphs}
        LIMIT 1
        RETURN 1`;
  }

  /** Every graph, or those of one workspace (the filter uses the workspace index). */
  listGraphs(workspace?: string): AqlQuery {
    if (workspace === undefined)
      return aql`
      FOR g IN ${this.c.graphs}
        SORT g.workspace, g._key
        RETURN { workspace: g.workspace, graphKey: g._key }`;
    return aql`
      FOR g IN ${this.c.graphs}
        FILTER g.workspace == ${workspace}
        SORT g._key
        RETURN { workspace: g.workspace, graphKey: g._key }`;
  }

  /** Model and hash of each node's stored vector (null when it has none), without the vectors themselves. */
  embeddingStates(workspace: string, graphKey: string): AqlQuery {
    return aql`
      ${this.ownerGuard(workspace, graphKey)}
      FOR n IN ${this.c.nodes}
        FILTER n.graphKey == ${graphKey}
        SORT n._key
        LET stored = IS_ARRAY(n.embedding)
        RETURN { key: n._key, model: stored ? n.embeddingModel : null, hash: stored ? n.embeddingHash : null }`;
  }

  // ── writes (each runs as one step of a stream transaction, or alone) ─────────────

  /** Stores vectors on existing nodes of the graph; nodes deleted in the meantime are skipped. */
  saveEmbeddings(
    workspace: string,
    graphKey: string,
    entries: Array<{ key: string; embedding: number[]; model: string; hash: string }>,
  ): AqlQuery {
    return aql`
      ${this.ownerGuard(workspace, graphKey)}
      FOR entry IN ${entries}
        FOR n IN ${this.c.nodes}
          FILTER n._key == entry.key AND n.graphKey == ${graphKey}
          UPDATE n WITH { embedding: entry.embedding, embeddingModel: entry.model, embeddingHash: entry.hash } IN ${this.c.nodes}`;
  }

  /**
   * What a change set needs to be planned (GraphChangePlanner), in one read inside its transaction:
   * whether the graph belongs to the workspace, and the named nodes and edges that exist, as
   * documents (nodes without their vector).
   */
  changeSetState(params: ChangeSetStateParams): AqlQuery {
    const { workspace, graphKey } = params;
    return aql`
      LET owner = FIRST(
        FOR g IN ${this.c.graphs}
          FILTER g._key == ${graphKey} AND g.workspace == ${workspace}
          LIMIT 1
          RETURN g._key
      )
      RETURN {
        owned: owner != null,
        nodes: (
          FOR n IN ${this.c.nodes}
            FILTER n._key IN ${params.nodeKeys} AND n.graphKey == ${graphKey}
            RETURN UNSET(n, ${HIDDEN_NODE_FIELDS})
        ),
        edges: (
          FOR e IN ${this.c.edges}
            FILTER e._key IN ${params.edgeKeys} AND e.graphKey == ${graphKey}
            RETURN UNSET(e, ${HIDDEN_EDGE_FIELDS})
        ),
        touching: (
          FOR e IN ${this.c.edges}
            FILTER e._from IN ${params.touchingNodeIds ?? []} OR e._to IN ${params.touchingNodeIds ?? []}
            FILTER e.graphKey == ${graphKey}
            RETURN UNSET(e, ${HIDDEN_EDGE_FIELDS})
        )
      }`;
  }

  removeNodes(compositeKeys: string[]): AqlQuery {
    return aql`FOR key IN ${compositeKeys} REMOVE key IN ${this.c.nodes}`;
  }

  /** Removes the named edges and every edge touching the given nodes (`nodius_nodes/...` ids), in one pass. */
  removeEdges(graphKey: string, compositeKeys: string[], touchingNodeIds: string[]): AqlQuery {
    return aql`
      FOR e IN ${this.c.edges}
        FILTER e._key IN ${compositeKeys} OR e._from IN ${touchingNodeIds} OR e._to IN ${touchingNodeIds}
        FILTER e.graphKey == ${graphKey}
        REMOVE e IN ${this.c.edges}`;
  }

  insertNodes(documents: object[]): AqlQuery {
    return aql`FOR doc IN ${documents} INSERT doc INTO ${this.c.nodes}`;
  }

  /**
   * Writes the named nodes of the graph without changing their content (a new revision only), inside
   * the transaction that creates edges to them: a concurrent transaction that deletes one of them
   * (and its edges) then meets a write-write conflict on that node, and one of the two is aborted,
   * so an edge is never committed to a node that is gone. Returns the keys touched: fewer than named
   * means a node is gone already.
   */
  touchNodes(graphKey: string, compositeKeys: string[]): AqlQuery {
    return aql`
      FOR key IN ${compositeKeys}
        FOR n IN ${this.c.nodes}
          FILTER n._key == key AND n.graphKey == ${graphKey}
          UPDATE n WITH {} IN ${this.c.nodes}
          RETURN n._key`;
  }

  insertEdges(documents: object[]): AqlQuery {
    return aql`FOR doc IN ${documents} INSERT doc INTO ${this.c.edges}`;
  }

  /**
   * Replaces node documents of the graph. A node whose content did not change keeps its stored vector
   * (moving a node must not cost a re-embedding); a changed one loses it, so a stale vector is never
   * searched. No LIMIT in the inner loop: in AQL a LIMIT limits the whole row stream of the nested
   * loops, not each outer iteration, so it would replace the first node only; the primary key lookup
   * already yields at most one document per replacement.
   */
  replaceNodes(graphKey: string, replacements: NodeReplacement[]): AqlQuery {
    return aql`
      FOR replacement IN ${replacements}
        FOR old IN ${this.c.nodes}
          FILTER old._key == replacement.document._key AND old.graphKey == ${graphKey}
          REPLACE old WITH MERGE(replacement.keepVector ? KEEP(old, ${[...EMBEDDING_FIELDS]}) : {}, replacement.document) IN ${this.c.nodes}`;
  }

  replaceEdge(document: { _key: string }): AqlQuery {
    return aql`REPLACE ${document} IN ${this.c.edges}`;
  }

  /**
   * Before an import: who owns the graph key (if anyone), whether another graph's key extends it or is
   * extended by it with "-" (their node keys could collide), which config keys another workspace owns,
   * and, when the graph is the workspace's own, the stored vectors with the content they were computed
   * from (a re-imported node whose content did not change keeps its vector).
   */
  importState(workspace: string, graphKey: string, configKeys: string[]): AqlQuery {
    // A graph key and another one extending it with "-" (a, a-b) would share node document keys.
    const extended = `${graphKey}-`;
    return aql`
      LET graphWorkspace = FIRST(FOR g IN ${this.c.graphs} FILTER g._key == ${graphKey} LIMIT 1 RETURN g.workspace)
      RETURN {
        graphWorkspace: graphWorkspace,
        clashingGraph: LENGTH(
          FOR g IN ${this.c.graphs}
            FILTER g._key != ${graphKey} AND (STARTS_WITH(g._key, ${extended}) OR STARTS_WITH(${extended}, CONCAT(g._key, ${'-'})))
            LIMIT 1
            RETURN 1
        ) > 0,
        foreignConfigs: (
          FOR c IN ${this.c.nodeConfigs}
            FILTER c._key IN ${configKeys} AND c.workspace != ${workspace}
            RETURN c._key
        ),
        vectors: graphWorkspace != ${workspace} ? [] : (
          FOR n IN ${this.c.nodes}
            FILTER n.graphKey == ${graphKey} AND IS_ARRAY(n.embedding)
            RETURN KEEP(n, ${['_key', 'type', 'process', 'data', 'handles', ...EMBEDDING_FIELDS]})
        )
      }`;
  }

  removeGraphEdges(graphKey: string): AqlQuery {
    return aql`FOR e IN ${this.c.edges} FILTER e.graphKey == ${graphKey} REMOVE e IN ${this.c.edges}`;
  }

  removeGraphNodes(graphKey: string): AqlQuery {
    return aql`FOR n IN ${this.c.nodes} FILTER n.graphKey == ${graphKey} REMOVE n IN ${this.c.nodes}`;
  }

  upsertGraph(document: object): AqlQuery {
    return aql`INSERT ${document} INTO ${this.c.graphs} OPTIONS { overwriteMode: "replace" }`;
  }

  upsertNodeConfigs(documents: object[]): AqlQuery {
    return aql`FOR doc IN ${documents} INSERT doc INTO ${this.c.nodeConfigs} OPTIONS { overwriteMode: "replace" }`;
  }

  /** Yields nothing unless the graph exists in this workspace; every node/edge read starts with it. */
  private ownerGuard(workspace: string, graphKey: string): AqlQuery {
    return aql`
      LET owner = FIRST(
        FOR g IN ${this.c.graphs}
          FILTER g._key == ${graphKey} AND g.workspace == ${workspace}
          LIMIT 1
          RETURN g._key
      )
      FILTER owner != null`;
  }
}
