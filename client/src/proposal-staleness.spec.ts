import { webcrypto } from 'node:crypto';
import { fingerprintOf } from '../../src/changes/document.fingerprint';
import { GraphSnapshot, keysOfChanges } from '../../src/changes/graph-snapshot';
import { basisOf, changedSince } from '../../src/changes/proposal-basis';
import { batchInterrupt, demoDocument, edge } from '../test/graph-view.fixtures';
import { checkProposal, documentFingerprint, type Sha256Digest } from './proposal-staleness';
import type { ApprovalInterrupt, GraphDocument } from './protocol';

const subtle = webcrypto.subtle as unknown as Sha256Digest;

/** The service's view of `graph` for `interrupt`: the snapshot its basis and its staleness check read. */
function serviceSnapshot(interrupt: ApprovalInterrupt, graph: GraphDocument): GraphSnapshot {
  return GraphSnapshot.of('nba-workflow', keysOfChanges(interrupt.preview), graph.nodes, graph.edges);
}

/** The batch with the basis the service gives it on the demo graph. */
function proposedOn(graph: GraphDocument): ApprovalInterrupt {
  const interrupt = batchInterrupt();
  interrupt.preview.basis = basisOf(interrupt.preview, serviceSnapshot(interrupt, graph), '7');
  return interrupt;
}

function single(graph: GraphDocument): ApprovalInterrupt {
  const interrupt: ApprovalInterrupt = {
    kind: 'approval',
    toolCallId: 'call_update',
    proposedAction: {
      type: 'update_node',
      payload: { nodeKey: 'filter-active', changes: { 'data.minGames': 20 } },
      reason: 'raise the bar',
    },
    preview: {
      sheetId: '0',
      nodesToCreate: [],
      edgesToCreate: [],
      instructions: [{ nodeKey: 'filter-active', op: 'set', path: ['data', 'minGames'], value: 20 }],
      nodeKeysToDelete: [],
      edgeKeysToDelete: [],
      basis: { graphRevision: null, nodes: {}, edges: {} },
    },
  };
  interrupt.preview.basis = basisOf(interrupt.preview, serviceSnapshot(interrupt, graph), '7');
  return interrupt;
}

describe(checkProposal.name, () => {
  it("computes the service's fingerprints: key order, undefined fields and vector fields make no difference", async () => {
    const documents = [
      { _key: 'a', data: { z: 1, a: [1, { y: 'é', b: null }] }, posX: 1.5 },
      { posX: 1.5, data: { a: [1, { b: null, y: 'é' }], z: 1 }, _key: 'a', gone: undefined, embedding: [0.1, 0.2] },
      demoDocument().nodes[1],
    ];
    for (const document of documents)
      await expect(documentFingerprint(document, subtle)).resolves.toBe(fingerprintOf(document));
    await expect(documentFingerprint(documents[0], subtle)).resolves.toBe(
      await documentFingerprint(documents[1], subtle),
    );
    await expect(documentFingerprint(null, subtle)).resolves.toBeNull();
  });

  it('finds nothing changed on the graph the proposal was made on, nor after edits of parts it does not touch', async () => {
    const graph = demoDocument();
    const interrupt = proposedOn(graph);
    await expect(checkProposal(interrupt, graph, subtle)).resolves.toEqual({
      changed: [],
      staleItems: new Set(),
      stale: false,
    });
    graph.nodes.find((node) => node._key === 'sort-stats')!.posX = 999;
    await expect(checkProposal(interrupt, graph, subtle)).resolves.toMatchObject({ changed: [], stale: false });
  });

  it("lists what changed as the service's check does, and a single proposal touched by it is stale", async () => {
    const graph = demoDocument();
    const interrupt = single(graph);
    graph.nodes.find((node) => node._key === 'filter-active')!.data = { minGames: 5 };
    const check = await checkProposal(interrupt, graph, subtle);
    expect(check).toEqual({
      changed: [{ kind: 'node', key: 'filter-active', change: 'modified' }],
      staleItems: new Set(),
      stale: true,
    });
    expect(check!.changed).toEqual(
      changedSince(interrupt.preview.basis!, interrupt.preview, serviceSnapshot(interrupt, graph)),
    );
  });

  it('names the items of a batch a change concerns; the others can still be approved, so the batch is not stale as a whole', async () => {
    const graph = demoDocument();
    const interrupt = proposedOn(graph);
    // fetch-api is read by i2 (the end of the edge it creates); error-handler, deleted by i5, gets a new edge.
    graph.nodes.find((node) => node._key === 'fetch-api')!.posY = 140;
    graph.edges.push(edge('root-to-error-handler', 'root', 'R-0', 'error-handler'));
    const check = await checkProposal(interrupt, graph, subtle);
    expect(check!.changed).toEqual([
      { kind: 'node', key: 'fetch-api', change: 'modified' },
      { kind: 'edge', key: 'root-to-error-handler', change: 'created' },
    ]);
    expect(check!.changed).toEqual(
      changedSince(interrupt.preview.basis!, interrupt.preview, serviceSnapshot(interrupt, graph)),
    );
    expect([...check!.staleItems].sort()).toEqual(['i2', 'i5']);
    expect(check!.stale).toBe(false);

    // A node it must create exists now (created by someone else), and a node it deletes is gone.
    const later = demoDocument();
    later.nodes.push({ ...interrupt.preview.nodesToCreate[0] });
    later.nodes = later.nodes.filter((node) => node._key !== 'error-handler');
    later.edges = later.edges.filter((candidate) => candidate.target !== 'error-handler');
    const moved = await checkProposal(interrupt, later, subtle);
    expect(moved!.changed).toEqual([
      { kind: 'node', key: 'error-handler', change: 'deleted' },
      { kind: 'node', key: 'log-errors', change: 'created' },
      { kind: 'edge', key: 'fetch-api-to-error-handler', change: 'deleted' },
    ]);
    // log-errors concerns i1 (creates it) and i2 (its edge ends there); the gone edge went with i5's node.
    expect([...moved!.staleItems].sort()).toEqual(['i1', 'i2', 'i5']);
  });

  it('is stale as a whole when every item of a batch is', async () => {
    const graph = demoDocument();
    const interrupt = proposedOn(graph);
    for (const key of ['fetch-api', 'filter-active', 'root', 'error-handler'])
      graph.nodes.find((node) => node._key === key)!.posX += 1;
    graph.nodes.push(...interrupt.preview.nodesToCreate.map((node) => ({ ...node })));
    const check = await checkProposal(interrupt, graph, subtle);
    expect(check!.staleItems.size).toBe(6);
    expect(check!.stale).toBe(true);
  });

  it('cannot check without a basis (an older interrupt) or without WebCrypto (a page on plain HTTP from another host): null', async () => {
    const graph = demoDocument();
    const interrupt = single(graph);
    await expect(checkProposal(interrupt, graph, null)).resolves.toBeNull();
    // An interrupt stored before proposals carried their basis.
    delete (interrupt.preview as { basis?: unknown }).basis;
    await expect(checkProposal(interrupt, graph, subtle)).resolves.toBeNull();
  });
});
