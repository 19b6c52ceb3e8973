import { Database } from 'arangojs';
import { AqlQuery, isAqlQuery } from 'arangojs/aql';
import { containsDeep, limitsNestedLoops, referencedBindVars } from '../../../test/support/aql-bind-vars';
import { ArangoGraphCollections, ArangoGraphQueries } from './arango-graph.queries';
import { ARANGO_GRAPH_NAMES } from './arango-graph.names';

/** Values an attacker controls (keys, workspace, query text) crafted to break out of an AQL string. */
const HOSTILE = {
  workspace: 'ws" || true || "',
  graphKey: 'x" || true || "',
  nodeKey: "n' OR 1==1 //",
  sheet: '0"; REMOVE "a" IN nodius_nodes //',
  query: 'fetch") OR true OR ("',
  model: 'm` RETURN 1 //',
};

/** String literals the query texts may contain: fixed option values, never data. */
const ALLOWED_LITERALS = new Set(['"bfs"', '"global"', '" "', '"replace"']);

// Building queries needs only collection handles: no request is made, no server is needed.
const db = new Database({ url: 'http://127.0.0.1:1', databaseName: 'unused' });
const collections: ArangoGraphCollections = {
  graphs: db.collection(ARANGO_GRAPH_NAMES.graphs),
  nodes: db.collection(ARANGO_GRAPH_NAMES.nodes),
  edges: db.collection(ARANGO_GRAPH_NAMES.edges),
  nodeConfigs: db.collection(ARANGO_GRAPH_NAMES.nodeConfigs),
  searchView: db.view(ARANGO_GRAPH_NAMES.searchView),
};
const queries = new ArangoGraphQueries(collections);
const compositeKey = `${HOSTILE.graphKey}-${HOSTILE.nodeKey}`;
const nodeId = `${ARANGO_GRAPH_NAMES.nodes}/${compositeKey}`;

/** One of each query the store sends, all built from hostile values. */
function everyQuery(): Record<string, AqlQuery> {
  const { workspace, graphKey, sheet, query, model } = HOSTILE;
  const vectorParams = { workspace, graphKey, vector: [0.1, 0.2], model, minScore: 0.3, limit: 5 };
  return {
    graph: queries.graph(workspace, graphKey),
    nodes: queries.nodes(workspace, graphKey),
    nodesOfSheet: queries.nodes(workspace, graphKey, sheet),
    nodesByKeys: queries.nodesByKeys(workspace, graphKey, [compositeKey]),
    edges: queries.edges(workspace, graphKey),
    edgesOfSheet: queries.edges(workspace, graphKey, sheet),
    edgesOut: queries.edgesOfNode(workspace, graphKey, nodeId, 'out'),
    edgesIn: queries.edgesOfNode(workspace, graphKey, nodeId, 'in'),
    edgesAny: queries.edgesOfNode(workspace, graphKey, nodeId, 'any'),
    nodeConfigs: queries.nodeConfigs(workspace),
    neighborhoodOut: queries.neighborhood(workspace, graphKey, compositeKey, 2, 'out'),
    neighborhoodIn: queries.neighborhood(workspace, graphKey, compositeKey, 2, 'in'),
    neighborhoodAny: queries.neighborhood(workspace, graphKey, compositeKey, 2, 'any'),
    lexicalSearch: queries.lexicalSearch({ workspace, graphKey, query, candidates: 50, waitForSync: false }),
    lexicalSearchSynced: queries.lexicalSearch({ workspace, graphKey, query, candidates: 50, waitForSync: true }),
    lexicalSearchOfSheet: queries.lexicalSearch({
      workspace,
      graphKey,
      query,
      candidates: 50,
      waitForSync: false,
      sheet,
    }),
    vectorSearchExact: queries.vectorSearchExact(vectorParams),
    vectorSearchIndexed: queries.vectorSearchIndexed({ ...vectorParams, nProbe: 12 }),
    graphNodeCount: queries.graphNodeCount(workspace, graphKey),
    listGraphs: queries.listGraphs(),
    anyGraph: queries.anyGraph(),
    listGraphsOfWorkspace: queries.listGraphs(workspace),
    embeddingStates: queries.embeddingStates(workspace, graphKey),
    saveEmbeddings: queries.saveEmbeddings(workspace, graphKey, [
      { key: compositeKey, embedding: [1, 0], model, hash: 'h"' },
    ]),
    changeSetState: queries.changeSetState({
      workspace,
      graphKey,
      nodeKeys: [compositeKey],
      edgeKeys: [compositeKey],
    }),
    removeNodes: queries.removeNodes([compositeKey]),
    removeEdges: queries.removeEdges(graphKey, [compositeKey], [nodeId]),
    insertNodes: queries.insertNodes([{ _key: compositeKey, graphKey }]),
    insertEdges: queries.insertEdges([{ _key: compositeKey, _from: nodeId, _to: nodeId }]),
    touchNodes: queries.touchNodes(graphKey, [compositeKey]),
    replaceNodes: queries.replaceNodes(graphKey, [
      { document: { _key: compositeKey, data: { text: HOSTILE.query } }, keepVector: true },
    ]),
    replaceEdge: queries.replaceEdge({ _key: compositeKey }),
    importState: queries.importState(workspace, graphKey, [HOSTILE.nodeKey]),
    removeGraphEdges: queries.removeGraphEdges(graphKey),
    removeGraphNodes: queries.removeGraphNodes(graphKey),
    upsertGraph: queries.upsertGraph({ _key: graphKey, workspace }),
    upsertNodeConfigs: queries.upsertNodeConfigs([{ _key: HOSTILE.nodeKey, workspace }]),
  };
}

describe(ArangoGraphQueries.name, () => {
  describe.each(Object.entries(everyQuery()))('%s', (_name, query) => {
    it('is an AqlQuery whose text refers only to bind variables it defines, and uses all of them', () => {
      expect(isAqlQuery(query)).toBe(true);
      expect(referencedBindVars(query.query)).toEqual(new Set(Object.keys(query.bindVars)));
    });

    it('never puts a caller-supplied value into the query text', () => {
      for (const value of Object.values(HOSTILE)) expect(query.query).not.toContain(value);
      const literals = query.query.match(/"[^"]*"|'[^']*'|`[^`]*`/g) ?? [];
      for (const literal of literals) expect(ALLOWED_LITERALS).toContain(literal);
    });

    it('never puts a LIMIT after nested loops, where it would cut the whole stream instead of each outer row', () => {
      expect(limitsNestedLoops(query.query)).toBe(false);
    });

    it('reaches collections and the view through @@ bind variables only', () => {
      const collectionVars = Object.entries(query.bindVars).filter(([name]) => name.startsWith('@'));
      for (const [, value] of collectionVars) expect(Object.values(ARANGO_GRAPH_NAMES)).toContain(value);
      for (const name of [
        ARANGO_GRAPH_NAMES.graphs,
        ARANGO_GRAPH_NAMES.nodes,
        ARANGO_GRAPH_NAMES.edges,
        ARANGO_GRAPH_NAMES.nodeConfigs,
      ]) {
        expect(query.query).not.toContain(name);
      }
    });
  });

  it('carries the hostile values as bind variables, untouched', () => {
    const all = everyQuery();
    expect(containsDeep(all.nodesOfSheet.bindVars, HOSTILE.sheet)).toBe(true);
    expect(containsDeep(all.nodesOfSheet.bindVars, HOSTILE.workspace)).toBe(true);
    expect(containsDeep(all.nodesByKeys.bindVars, compositeKey)).toBe(true);
    expect(containsDeep(all.lexicalSearch.bindVars, HOSTILE.query)).toBe(true);
    expect(containsDeep(all.lexicalSearchOfSheet.bindVars, HOSTILE.sheet)).toBe(true);
    expect(all.lexicalSearchOfSheet.query).toMatch(/FILTER n\.sheet == @value\d+\s+LET score = BM25\(n\)/);
    expect(all.lexicalSearch.query).not.toContain('n.sheet');
    expect(containsDeep(all.vectorSearchExact.bindVars, HOSTILE.model)).toBe(true);
    expect(containsDeep(all.replaceNodes.bindVars, HOSTILE.query)).toBe(true);
    expect(containsDeep(all.removeEdges.bindVars, nodeId)).toBe(true);
    expect(containsDeep(all.listGraphsOfWorkspace.bindVars, HOSTILE.workspace)).toBe(true);
    expect(all.listGraphsOfWorkspace.query).toMatch(/FILTER g\.workspace == @value\d+/);
  });

  it('starts every node and edge read with the workspace guard on the graph', () => {
    const all = everyQuery();
    const guarded = [
      'nodes',
      'nodesByKeys',
      'edges',
      'edgesOut',
      'neighborhoodAny',
      'lexicalSearch',
      'vectorSearchExact',
      'vectorSearchIndexed',
      'graphNodeCount',
      'embeddingStates',
      'saveEmbeddings',
    ];
    for (const name of guarded) {
      const query = all[name];
      expect(query.query).toMatch(
        /FOR g IN @@\w+\s+FILTER g\._key == @\w+ AND g\.workspace == @\w+[\s\S]*FILTER owner != null/,
      );
      expect(Object.values(query.bindVars)).toContain(HOSTILE.workspace);
    }
  });

  it.each([
    ['out', 'OUTBOUND'],
    ['in', 'INBOUND'],
    ['any', 'ANY'],
  ] as const)('branches the traversal for direction %s into its own query with %s', (direction, keyword) => {
    const query = queries.neighborhood('ws', 'g', 'g-a', 3, direction);
    const traversal = query.query.match(/FOR v, e, p IN 1\.\.@\w+ (\w+) start @@\w+/);
    expect(traversal?.[1]).toBe(keyword);
    expect(query.query).toContain('OPTIONS { order: "bfs", uniqueVertices: "global" }');
    expect(Object.values(query.bindVars)).toContain(3);
  });

  it.each([
    ['out', /e\._from == @\w+ AND/],
    ['in', /e\._to == @\w+ AND/],
    ['any', /\(e\._from == @\w+ OR e\._to == @\w+\)/],
  ] as const)('selects edges of a node for direction %s by the matching endpoint', (direction, pattern) => {
    expect(queries.edgesOfNode('ws', 'g', 'nodius_nodes/g-a', direction).query).toMatch(pattern);
  });

  it('filters by sheet only when a sheet is given', () => {
    expect(queries.nodes('ws', 'g').query).not.toContain('n.sheet');
    const bySheet = queries.nodes('ws', 'g', '1');
    expect(bySheet.query).toMatch(/n\.sheet == @\w+/);
    expect(Object.values(bySheet.bindVars)).toContain('1');
  });

  it("scans one sheet's vectors when a sheet is given", () => {
    const base = { workspace: 'ws', graphKey: 'g', vector: [1, 0], model: 'm', minScore: 0.3, limit: 5 };
    expect(queries.vectorSearchExact(base).query).not.toContain('n.sheet');
    const scoped = queries.vectorSearchExact({ ...base, sheet: '7' });
    expect(scoped.query).toMatch(/FILTER n\.sheet == @\w+/);
    expect(Object.values(scoped.bindVars)).toContain('7');
  });

  it('keeps the first nodes only when a limit is given, after sorting', () => {
    expect(queries.nodes('ws', 'g').query).not.toMatch(/SORT n\._key\s+LIMIT/);
    const limited = queries.nodes('ws', 'g', undefined, 20);
    expect(limited.query).toMatch(/SORT n\._key\s+LIMIT @\w+/);
    expect(Object.values(limited.bindVars)).toContain(20);
  });

  it('asks the search view to wait for recent writes only when told to', () => {
    const base = { workspace: 'ws', graphKey: 'g', query: 'fetch', candidates: 50 };
    expect(queries.lexicalSearch({ ...base, waitForSync: false }).query).not.toContain('waitForSync');
    expect(queries.lexicalSearch({ ...base, waitForSync: true }).query).toContain('OPTIONS { waitForSync: true }');
  });

  it('searches through the view with BM25, analyzing the query with the index analyzers', () => {
    const query = queries.lexicalSearch({
      workspace: 'ws',
      graphKey: 'g',
      query: 'fetchPlayers',
      candidates: 50,
      waitForSync: false,
    });
    expect(
      query.bindVars[
        Object.keys(query.bindVars).find((name) => query.bindVars[name] === ARANGO_GRAPH_NAMES.searchView) as string
      ],
    ).toBe(ARANGO_GRAPH_NAMES.searchView);
    expect(query.query).toMatch(/FOR n IN @@\w+\s+SEARCH n\.graphKey == @\w+ AND/);
    expect(query.query).toContain('LET score = BM25(n)');
    expect(query.query).toContain('FILTER score > 0');
    expect(Object.values(query.bindVars)).toEqual(
      expect.arrayContaining([ARANGO_GRAPH_NAMES.identifierAnalyzer, ARANGO_GRAPH_NAMES.proseAnalyzer]),
    );
  });

  it('compares vectors of the requested model only, with a threshold and a limit', () => {
    const params = {
      workspace: 'ws',
      graphKey: 'g',
      vector: [0.5, 0.5],
      model: 'text-embedding-3-small',
      minScore: 0.3,
      limit: 7,
    };
    const exact = queries.vectorSearchExact(params);
    expect(exact.query).toMatch(/n\.embeddingModel == @\w+/);
    expect(exact.query).toMatch(/COSINE_SIMILARITY\(n\.embedding, @\w+\)/);
    expect(exact.query).toMatch(/FILTER score > @\w+/);
    expect(Object.values(exact.bindVars)).toEqual(
      expect.arrayContaining(['text-embedding-3-small', 0.3, 7, [0.5, 0.5]]),
    );
  });

  it('searches through the vector index probing nProbe clusters, in the documented FOR, FILTER, SORT, LIMIT form', () => {
    const params = {
      workspace: 'ws',
      graphKey: 'g',
      vector: [0.5, 0.5],
      model: 'text-embedding-3-small',
      minScore: 0.3,
      limit: 7,
      nProbe: 23,
    };
    const indexed = queries.vectorSearchIndexed(params);
    const text = indexed.query.replace(/\s+/g, ' ');
    // One FILTER between FOR and SORT (applied inside the index lookup, 3.12.6+), then SORT by the similarity and LIMIT.
    expect(text).toMatch(
      /LET hits = \( FOR n IN @@\w+ FILTER n\.graphKey == @\w+ AND n\.embeddingModel == @\w+ LET score = APPROX_NEAR_COSINE\(n\.embedding, @\w+, \{ nProbe: @(\w+) \}\) SORT score DESC LIMIT @\w+ RETURN/,
    );
    const nProbeVar = text.match(/nProbe: @(\w+)/)?.[1] as string;
    expect(indexed.bindVars[nProbeVar]).toBe(23);
    const search = text.slice(text.indexOf('LET hits = ('), text.indexOf('FOR hit IN hits'));
    expect(search.match(/\bFILTER\b/g)).toHaveLength(1);
    expect(text).toMatch(/FOR hit IN hits FILTER hit\.score > @\w+ RETURN hit$/);
    expect(Object.values(indexed.bindVars)).toEqual(
      expect.arrayContaining(['text-embedding-3-small', 0.3, 7, [0.5, 0.5]]),
    );
  });

  it('counts the nodes of the graph, for the choice between the exact scan and the index', () => {
    const count = queries.graphNodeCount('ws', 'g');
    expect(count.query.replace(/\s+/g, ' ')).toMatch(
      /RETURN COUNT\(FOR n IN @@\w+ FILTER n\.graphKey == @\w+ RETURN 1\)$/,
    );
  });

  it('replaces every node a change set updates: each matched by key within the graph, no LIMIT across the loops', () => {
    const replacements = ['a', 'b', 'c'].map((key) => ({
      document: { _key: `g-${key}`, graphKey: 'g' },
      keepVector: key !== 'b',
    }));
    const query = queries.replaceNodes('g', replacements);
    expect(query.query).toMatch(
      /FOR replacement IN @\w+\s+FOR old IN @@\w+\s+FILTER old\._key == replacement\.document\._key AND old\.graphKey == @\w+\s+REPLACE old/,
    );
    expect(query.query).not.toContain('LIMIT');
    expect(Object.values(query.bindVars)).toContainEqual(replacements);
    // The helper that guards every query above does see the defect this query had.
    expect(
      limitsNestedLoops(
        'FOR r IN @r FOR old IN @@nodes FILTER old._key == r._key LIMIT 1 REPLACE old WITH r IN @@nodes',
      ),
    ).toBe(true);
    expect(
      limitsNestedLoops('FOR r IN @r LET old = FIRST(FOR o IN @@nodes FILTER o._key == r LIMIT 1 RETURN o) RETURN old'),
    ).toBe(false);
  });

  it('never returns the stored vector from a read', () => {
    const hidden = queries.nodes('ws', 'g');
    const fields = Object.values(hidden.bindVars).find((value) => Array.isArray(value)) as string[];
    expect(fields).toEqual(expect.arrayContaining(['_id', '_rev', 'embedding', 'aiSearchData']));
    expect(hidden.query).toMatch(/RETURN UNSET\(n, @\w+\)/);
  });

  it('tests for any graph by reading one document at most, never the whole collection', () => {
    const text = queries.anyGraph().query.replace(/\s+/g, ' ').trim();
    expect(text).toBe('FOR g IN @@value0 LIMIT 1 RETURN 1');
  });
});
