import { InMemoryGraphDataSource } from '../../test/support/in-memory-graph-data-source';
import { nbaWorkflowDemo } from './demo/nba-workflow.demo';
import { exportGraphDocument } from './graph-document.exporter';
import { GraphDocument } from './graph.types';

describe(exportGraphDocument.name, () => {
  // A store that hands nodes back with their vectors, as ArangoDB does (the documents carry them).
  const embedded: GraphDocument = {
    ...structuredClone(nbaWorkflowDemo),
    graph: { ...nbaWorkflowDemo.graph, workspace: 'default' },
    nodes: nbaWorkflowDemo.nodes.map((node) => ({
      ...node,
      embedding: [0.1, 0.2],
      embeddingModel: 'local-hash-v1-2',
      embeddingHash: 'abc',
    })),
  };

  it('leaves the embedding fields out of every node (docs/protocol.md §3 GET /graphs/:graphKey) and keeps the rest as stored', async () => {
    const exported = await exportGraphDocument(new InMemoryGraphDataSource('default', [embedded]), embedded.graph._key);
    expect(exported!.nodes).toHaveLength(nbaWorkflowDemo.nodes.length);
    for (const node of exported!.nodes) {
      expect(Object.keys(node)).toEqual(expect.not.arrayContaining(['embedding', 'embeddingModel', 'embeddingHash']));
    }
    expect(exported!.nodes).toEqual(nbaWorkflowDemo.nodes);
  });

  it('is null for a graph outside the workspace', async () => {
    expect(await exportGraphDocument(new InMemoryGraphDataSource('other', [embedded]), embedded.graph._key)).toBeNull();
  });
});
