import { GraphEdge, GraphNode } from '../graph.types';
import { ArangoDocumentMapper } from './arango-document.mapper';

describe(ArangoDocumentMapper.name, () => {
  const graphKey = 'nba-workflow';

  describe('keys', () => {
    it('composes {graphKey}-{localKey} and the nodius_nodes/ handle edges point at', () => {
      expect(ArangoDocumentMapper.compositeKey(graphKey, 'fetch-api')).toBe('nba-workflow-fetch-api');
      expect(ArangoDocumentMapper.nodeId(graphKey, 'fetch-api')).toBe('nodius_nodes/nba-workflow-fetch-api');
    });

    it('strips exactly the graph prefix, even when the local key itself contains dashes', () => {
      expect(ArangoDocumentMapper.localKey(graphKey, 'nba-workflow-filter-active')).toBe('filter-active');
      expect(ArangoDocumentMapper.localKey('a', 'a-a-b')).toBe('a-b');
    });

    it('keeps a key that does not carry the prefix', () => {
      expect(ArangoDocumentMapper.localKey(graphKey, 'legacy-key')).toBe('legacy-key');
    });
  });

  describe('nodes', () => {
    const stored = {
      _key: 'nba-workflow-fetch-api',
      _id: 'nodius_nodes/nba-workflow-fetch-api',
      _rev: '_hZ1x---',
      graphKey,
      type: 'api-call',
      sheet: '0',
      posX: 1,
      posY: 2,
      process: 'fetch()',
      data: { url: 'https://x' },
      typeVersion: 3,
      nodiusOnlyField: { kept: true },
      embedding: [0.1, 0.2],
      embeddingModel: 'm',
      embeddingHash: 'h',
      aiSearchData: 'https://x',
    };

    it('reads a stored node with its local key, its extra fields, and no Arango metadata, vector or search field', () => {
      const node = ArangoDocumentMapper.toNode(stored, graphKey);
      expect(node._key).toBe('fetch-api');
      expect(node.graphKey).toBe(graphKey);
      expect(node.nodiusOnlyField).toEqual({ kept: true });
      expect(node.typeVersion).toBe(3);
      for (const field of ['_id', '_rev', 'embedding', 'embeddingModel', 'embeddingHash', 'aiSearchData'])
        expect(node).not.toHaveProperty(field);
    });

    it('can keep the embedding model and hash (never the vector)', () => {
      const node = ArangoDocumentMapper.toNode(stored, graphKey, { keepEmbeddingState: true });
      expect(node).toMatchObject({ embeddingModel: 'm', embeddingHash: 'h' });
      expect(node).not.toHaveProperty('embedding');
    });

    it('writes a node under its composite key with the flattened data strings for search', () => {
      const node: GraphNode = {
        _key: 'note',
        graphKey: 'ignored',
        type: 'html',
        sheet: '1',
        posX: 0,
        posY: 0,
        data: { note: 'team averages', nested: { list: ['sort-stats', 3] } },
        custom: 'kept',
      };
      const doc = ArangoDocumentMapper.toNodeDocument(graphKey, node);
      expect(doc).toMatchObject({ _key: 'nba-workflow-note', graphKey, custom: 'kept', data: node.data });
      expect(String(doc.aiSearchData).split('\n').sort()).toEqual(['sort-stats', 'team averages']);
    });

    it('writes no search field for a node without string data, and drops Arango metadata it was given', () => {
      const doc = ArangoDocumentMapper.toNodeDocument(graphKey, {
        _key: 'a',
        graphKey,
        type: 't',
        sheet: '0',
        posX: 0,
        posY: 0,
        data: { n: 1 },
        _id: 'nodius_nodes/other',
        _rev: 'r',
      } as GraphNode);
      expect(doc).not.toHaveProperty('aiSearchData');
      expect(doc).not.toHaveProperty('_id');
      expect(doc).not.toHaveProperty('_rev');
    });

    it('round-trips: what is written reads back as the same node', () => {
      const node: GraphNode = {
        _key: 'k',
        graphKey,
        type: 't',
        sheet: '0',
        posX: 5,
        posY: 6,
        process: 'x',
        data: { a: 'b' },
        extra: [1],
      };
      const stored = {
        ...ArangoDocumentMapper.toNodeDocument(graphKey, node),
        _id: 'nodius_nodes/nba-workflow-k',
        _rev: '1',
      };
      expect(ArangoDocumentMapper.toNode(stored, graphKey)).toEqual(node);
    });

    it('leaves the vector and what it was computed from out of an export', () => {
      const exported = ArangoDocumentMapper.toExportedNode({
        ...ArangoDocumentMapper.toNode(stored, graphKey, { keepEmbeddingState: true }),
        embedding: [1],
      });
      for (const field of ['embedding', 'embeddingModel', 'embeddingHash']) expect(exported).not.toHaveProperty(field);
      expect(exported.nodiusOnlyField).toEqual({ kept: true });
    });
  });

  describe('edges', () => {
    it('reads endpoints from _from/_to, and drops them with the other Arango metadata', () => {
      const edge = ArangoDocumentMapper.toEdge(
        {
          _key: 'nba-workflow-e1',
          _id: 'nodius_edges/nba-workflow-e1',
          _rev: 'r',
          _from: 'nodius_nodes/nba-workflow-fetch-api',
          _to: 'nodius_nodes/nba-workflow-filter-active',
          graphKey,
          sheet: '0',
          sourceHandle: 'R-0',
          targetHandle: 'L-0',
          label: 'success',
          color: 'red',
        },
        graphKey,
      );
      expect(edge).toEqual({
        _key: 'e1',
        graphKey,
        sheet: '0',
        source: 'fetch-api',
        sourceHandle: 'R-0',
        target: 'filter-active',
        targetHandle: 'L-0',
        label: 'success',
        color: 'red',
      });
    });

    it('falls back to stored source/target, composite or local, when _from/_to do not carry the graph prefix', () => {
      const edge = ArangoDocumentMapper.toEdge(
        {
          _key: 'nba-workflow-e2',
          _from: 'other/x',
          _to: 'other/y',
          source: 'nba-workflow-a',
          target: 'b',
          graphKey,
          sheet: '0',
        },
        graphKey,
      );
      expect(edge.source).toBe('a');
      expect(edge.target).toBe('b');
    });

    it('writes an edge under its composite key with _from/_to built from the composite node keys', () => {
      const edge: GraphEdge = {
        _key: 'e',
        graphKey,
        sheet: '0',
        source: 'a',
        sourceHandle: 'R-0',
        target: 'b',
        targetHandle: 'L-0',
        weight: 2,
      };
      const doc = ArangoDocumentMapper.toEdgeDocument(graphKey, edge);
      expect(doc).toMatchObject({
        _key: 'nba-workflow-e',
        _from: 'nodius_nodes/nba-workflow-a',
        _to: 'nodius_nodes/nba-workflow-b',
        source: 'a',
        target: 'b',
        weight: 2,
      });
      expect(ArangoDocumentMapper.toEdge({ ...doc, _id: 'x', _rev: 'y' }, graphKey)).toEqual(edge);
    });
  });

  describe('graphs and node configs', () => {
    it('drops Arango metadata on read and stamps the workspace on write', () => {
      const graph = ArangoDocumentMapper.toGraph({
        _key: 'g',
        _id: 'nodius_graphs/g',
        _rev: 'r',
        workspace: 'w',
        name: 'G',
        sheetsList: {},
        permission: 1,
      });
      expect(graph).toEqual({ _key: 'g', workspace: 'w', name: 'G', sheetsList: {}, permission: 1 });
      expect(ArangoDocumentMapper.toGraphDocument('mine', { ...graph, workspace: 'theirs' }).workspace).toBe('mine');
      const config = ArangoDocumentMapper.toNodeConfig({
        _key: 'c',
        _rev: 'r',
        workspace: 'w',
        displayName: 'C',
        border: {},
      });
      expect(config).toEqual({ _key: 'c', workspace: 'w', displayName: 'C', border: {} });
      expect(ArangoDocumentMapper.toNodeConfigDocument('mine', config).workspace).toBe('mine');
    });
  });
});
