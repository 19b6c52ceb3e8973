import { randomUUID } from 'node:crypto';
import { OperationRepository, OperationWrite } from '../../src/changes/operation.repository';
import { GraphSnapshot, keysOfChanges } from '../../src/changes/graph-snapshot';
import { dataSourceSnapshots } from '../../src/changes/graph-snapshot.source';
import { emptyChanges, OperationRecord } from '../../src/changes/operation';
import { ActionConversionResult } from '../../src/conversation/action-conversion-result';
import { GraphStore } from '../../src/graph/graph-store';
import { GraphDocument } from '../../src/graph/graph.types';

export interface OperationRepositoryFixture {
  repository: OperationRepository;
  /** The graph store the change log shares its transactions with. */
  graphs: GraphStore;
  /** A new change log on the same store, as after a restart. */
  reopen(): Promise<OperationRepository>;
  close(): Promise<void>;
}

/**
 * The behaviour every OperationRepository adapter must have (SQLite, ArangoDB): the record and the graph write in one
 * transaction, the first decision of an operation wins, a write planned against documents that moved writes nothing.
 * Each test uses its own workspace and graph key, so adapters need no cleaning between tests.
 */
export function describeOperationRepositoryContract(
  name: string,
  create: () => Promise<OperationRepositoryFixture>,
): void {
  describe(`OperationRepository contract: ${name}`, () => {
    let fixture: OperationRepositoryFixture;
    let repository: OperationRepository;
    let workspace: string;
    let graphKey: string;
    let threadId: string;

    const graph = (): GraphDocument => ({
      graph: { _key: graphKey, workspace, name: 'contract', sheetsList: { '0': 'main' } },
      nodes: [
        { _key: 'a', graphKey, type: 'starter', sheet: '0', posX: 0, posY: 0 },
        { _key: 'b', graphKey, type: 'return', sheet: '0', posX: 100, posY: 0, data: { label: 'b' } },
      ],
      edges: [{ _key: 'e1', graphKey, sheet: '0', source: 'a', sourceHandle: 'R-0', target: 'b', targetHandle: 'L-0' }],
      nodeConfigs: [],
    });
    const createC: ActionConversionResult = {
      ...emptyChanges('0'),
      nodesToCreate: [{ _key: 'c', graphKey: '', type: 'html', sheet: '0', posX: 5, posY: 5 }],
    };
    const record = (operationId: string, overrides: Partial<OperationRecord> = {}): OperationRecord => ({
      operationId,
      workspace,
      graphKey,
      threadId,
      toolCallId: operationId.split(':')[1],
      status: 'applied',
      actor: { userId: 'ada', role: 'editor', via: 'approval' },
      appliedTime: 1_700_000_000_000,
      changes: createC,
      inverse: { ...emptyChanges('0'), nodeKeysToDelete: ['c'] },
      touched: [{ kind: 'node', key: 'c', before: null, after: 'f1' }],
      outcome: {},
      ...overrides,
    });
    const stored = async (changes: ActionConversionResult) => {
      const keys = keysOfChanges(changes);
      const snapshot = await GraphSnapshot.read(
        graphKey,
        dataSourceSnapshots(fixture.graphs.forWorkspace(workspace), graphKey),
        keys,
      );
      return { keys, fingerprints: snapshot.fingerprints() };
    };
    const write = async (operationId: string, changes: ActionConversionResult, extra: Partial<OperationWrite> = {}) =>
      repository.commit({
        workspace,
        graphKey,
        record: record(operationId, { changes }),
        changes,
        expected: await stored(changes),
        ...extra,
      });
    const nodeKeys = async () =>
      (await fixture.graphs.forWorkspace(workspace).getNodes(graphKey)).map((node) => node._key).sort();

    beforeEach(async () => {
      fixture = await create();
      repository = fixture.repository;
      workspace = `ws-${randomUUID()}`;
      graphKey = `g-${randomUUID().slice(0, 8)}`;
      threadId = `ai_${randomUUID().replace(/-/g, '')}`;
      await fixture.graphs.importGraph(workspace, graph());
    });

    afterEach(async () => {
      await fixture.close();
    });

    it('applies the change set and stores the record in one commit, readable by id and by thread', async () => {
      const committed = await write(`${threadId}:call_1`, createC);
      expect(committed).toEqual({ outcome: 'recorded', record: expect.objectContaining({ status: 'applied' }) });
      expect(await nodeKeys()).toEqual(['a', 'b', 'c']);
      await expect(repository.get(workspace, `${threadId}:call_1`)).resolves.toEqual(record(`${threadId}:call_1`));
      await expect(repository.listByThread(workspace, threadId)).resolves.toEqual([record(`${threadId}:call_1`)]);
    });

    it('writes nothing for an operation recorded already: the first record answers', async () => {
      await write(`${threadId}:call_1`, createC);
      const again = await repository.commit({
        workspace,
        graphKey,
        record: record(`${threadId}:call_1`, { status: 'rejected' }),
        changes: createC,
        expected: null,
      });
      expect(again).toEqual({ outcome: 'exists', record: expect.objectContaining({ status: 'applied' }) });
      expect(await nodeKeys()).toEqual(['a', 'b', 'c']);
    });

    it('writes nothing when the stored documents moved since the write was planned', async () => {
      const changes: ActionConversionResult = {
        ...emptyChanges('0'),
        instructions: [{ nodeKey: 'b', op: 'set', path: ['posX'], value: 500 }],
      };
      const expected = await stored(changes);
      await fixture.graphs.forWorkspace(workspace).applyChanges(graphKey, {
        ...emptyChanges('0'),
        instructions: [{ nodeKey: 'b', op: 'set', path: ['posY'], value: 9 }],
      });
      const moved = await repository.commit({
        workspace,
        graphKey,
        record: record(`${threadId}:call_2`, { changes }),
        changes,
        expected,
      });
      expect(moved).toMatchObject({ outcome: 'moved', difference: 'node b' });
      await expect(repository.get(workspace, `${threadId}:call_2`)).resolves.toBeNull();
      expect((await fixture.graphs.forWorkspace(workspace).getNodeByKey(graphKey, 'b'))?.posX).toBe(100);
    });

    it('notices an edge that appeared on a node whose edges were read', async () => {
      const changes: ActionConversionResult = { ...emptyChanges('0'), nodeKeysToDelete: ['b'] };
      const expected = await stored(changes);
      await fixture.graphs.forWorkspace(workspace).applyChanges(graphKey, {
        ...emptyChanges('0'),
        edgesToCreate: [
          { _key: 'e2', graphKey, sheet: '0', source: 'b', sourceHandle: 'R-0', target: 'a', targetHandle: 'L-0' },
        ],
      });
      const moved = await repository.commit({
        workspace,
        graphKey,
        record: record(`${threadId}:call_3`),
        changes,
        expected,
      });
      expect(moved).toMatchObject({ outcome: 'moved' });
      expect(await nodeKeys()).toEqual(['a', 'b']);
    });

    it('throws the graph store refusal and records nothing when the change set cannot apply', async () => {
      const taken: ActionConversionResult = {
        ...emptyChanges('0'),
        nodesToCreate: [{ _key: 'a', graphKey: '', type: 'html', sheet: '0', posX: 0, posY: 0 }],
      };
      await expect(
        repository.commit({
          workspace,
          graphKey,
          record: record(`${threadId}:call_4`),
          changes: taken,
          expected: null,
        }),
      ).rejects.toMatchObject({ code: 'conflict' });
      await expect(repository.get(workspace, `${threadId}:call_4`)).resolves.toBeNull();
    });

    it('records a decision without a graph write; a later different decision gets the first one', async () => {
      const rejected = record(`${threadId}:call_5`, { status: 'rejected', changes: emptyChanges('0'), touched: [] });
      await expect(
        repository.commit({ workspace, graphKey, record: rejected, changes: null, expected: null }),
      ).resolves.toEqual({ outcome: 'recorded', record: rejected });
      await expect(write(`${threadId}:call_5`, createC)).resolves.toEqual({ outcome: 'exists', record: rejected });
      expect(await nodeKeys()).toEqual(['a', 'b']);
    });

    it("marks the operations a revert reverts, in the revert's commit", async () => {
      await write(`${threadId}:call_6`, createC);
      const undo: ActionConversionResult = { ...emptyChanges('0'), nodeKeysToDelete: ['c'] };
      await write(`${threadId}:undo:1`, undo, { reverts: [`${threadId}:call_6`] });
      expect(await nodeKeys()).toEqual(['a', 'b']);
      await expect(repository.get(workspace, `${threadId}:call_6`)).resolves.toMatchObject({
        revertedBy: `${threadId}:undo:1`,
      });
      expect((await repository.listByThread(workspace, threadId)).map((item) => item.operationId)).toEqual([
        `${threadId}:call_6`,
        `${threadId}:undo:1`,
      ]);
    });

    it("keeps each workspace's operations apart", async () => {
      await write(`${threadId}:call_7`, createC);
      await expect(repository.get(`other-${workspace}`, `${threadId}:call_7`)).resolves.toBeNull();
      await expect(repository.listByThread(`other-${workspace}`, threadId)).resolves.toEqual([]);
    });

    it('prunes the operations decided before a time', async () => {
      await repository.commit({
        workspace,
        graphKey,
        record: record(`${threadId}:old`, { appliedTime: 1_000 }),
        changes: null,
        expected: null,
      });
      await repository.commit({
        workspace,
        graphKey,
        record: record(`${threadId}:new`, { appliedTime: 5_000 }),
        changes: null,
        expected: null,
      });
      expect(await repository.prune(2_000)).toBeGreaterThanOrEqual(1);
      expect((await repository.listByThread(workspace, threadId)).map((item) => item.operationId)).toEqual([
        `${threadId}:new`,
      ]);
    });

    it('answers a revision for an existing graph, null for an absent one', async () => {
      await expect(repository.graphRevision(workspace, graphKey)).resolves.toEqual(expect.any(String));
      await expect(repository.graphRevision(workspace, 'no-such-graph')).resolves.toBeNull();
    });

    it('keeps its records across a restart', async () => {
      await write(`${threadId}:call_8`, createC);
      const reopened = await fixture.reopen();
      await expect(reopened.get(workspace, `${threadId}:call_8`)).resolves.toMatchObject({ status: 'applied' });
    });
  });
}
