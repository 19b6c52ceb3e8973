import type { Database, Statement } from 'better-sqlite3';
import { inImmediateTransaction } from '../../graph/sqlite/sqlite-immediate.transaction';
import { SqliteGraphStore } from '../../graph/sqlite/sqlite-graph.store';
import type { SqliteGraphTransaction } from '../../graph/sqlite/sqlite-graph.writer';
import type { GraphEdge, GraphNode } from '../../graph/graph.types';
import type { OperationCommit, OperationRepository, OperationWrite } from '../operation.repository';
import { fingerprintDifference, GraphSnapshot, SnapshotKeys } from '../graph-snapshot';
import type { OperationRecord } from '../operation';

interface RecordRow {
  record: string;
  revertedBy: string | null;
}

/**
 * The change log in the embedded store (`ai_operations` of `<DATA_DIR>/ai.sqlite`): each commit is ONE IMMEDIATE
 * transaction of the graph store (SqliteGraphStore.transaction) in which the record is checked absent, the stored
 * documents checked, the change set applied and the record inserted: a crash leaves both or neither.
 */
export class SqliteOperationRepository implements OperationRepository {
  private readonly select: Statement<[string, string], RecordRow>;
  private readonly insert: Statement<[string, string, string, string, string, number, string]>;
  private readonly markReverted: Statement<[string, string, string]>;
  private readonly byThread: Statement<[string, string], RecordRow>;
  private readonly pruneBefore: Statement<[number]>;

  constructor(
    private readonly db: Database,
    private readonly graphs: SqliteGraphStore,
  ) {
    this.select = db.prepare(
      'SELECT record, reverted_by AS revertedBy FROM ai_operations WHERE workspace = ? AND operation_id = ?',
    );
    this.insert = db.prepare(
      'INSERT INTO ai_operations (workspace, operation_id, thread_id, graph_key, status, applied_at, record) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.markReverted = db.prepare(
      'UPDATE ai_operations SET reverted_by = ? WHERE workspace = ? AND operation_id = ? AND reverted_by IS NULL',
    );
    this.byThread = db.prepare(
      'SELECT record, reverted_by AS revertedBy FROM ai_operations WHERE workspace = ? AND thread_id = ? ORDER BY applied_at, rowid',
    );
    this.pruneBefore = db.prepare('DELETE FROM ai_operations WHERE applied_at < ?');
  }

  async commit(write: OperationWrite): Promise<OperationCommit> {
    const { workspace, graphKey } = write;
    if (!write.changes && !write.expected) return inImmediateTransaction(this.db, () => this.record(write));
    return this.graphs.transaction(workspace, graphKey, (graph) => {
      const existing = this.find(workspace, write.record.operationId);
      if (existing) return { outcome: 'exists', record: existing };
      if (write.expected) {
        const stored = readSnapshot(graphKey, graph, write.expected.keys);
        const difference = fingerprintDifference(write.expected.fingerprints, stored.fingerprints());
        if (difference) return { outcome: 'moved', difference };
      }
      if (write.changes) graph.apply(write.changes);
      return this.record(write);
    });
  }

  async get(workspace: string, operationId: string): Promise<OperationRecord | null> {
    return this.find(workspace, operationId);
  }

  async listByThread(workspace: string, threadId: string): Promise<OperationRecord[]> {
    return this.byThread.all(workspace, threadId).map(toRecord);
  }

  async graphRevision(workspace: string, graphKey: string): Promise<string | null> {
    const revision = this.graphs.revision(workspace, graphKey);
    return revision === null ? null : String(revision);
  }

  async prune(before: number): Promise<number> {
    return this.pruneBefore.run(before).changes;
  }

  /** Inside a transaction: the record, unless its id is taken; the reverted operations marked. */
  private record(write: OperationWrite): OperationCommit {
    const { workspace, record } = write;
    const existing = this.find(workspace, record.operationId);
    if (existing) return { outcome: 'exists', record: existing };
    const { revertedBy: _revertedBy, ...stored } = record;
    this.insert.run(
      workspace,
      record.operationId,
      record.threadId,
      record.graphKey,
      record.status,
      record.appliedTime,
      JSON.stringify(stored),
    );
    for (const reverted of write.reverts ?? []) this.markReverted.run(record.operationId, workspace, reverted);
    return { outcome: 'recorded', record };
  }

  private find(workspace: string, operationId: string): OperationRecord | null {
    const row = this.select.get(workspace, operationId);
    return row ? toRecord(row) : null;
  }
}

function toRecord(row: RecordRow): OperationRecord {
  const record = JSON.parse(row.record) as OperationRecord;
  return row.revertedBy ? { ...record, revertedBy: row.revertedBy } : record;
}

function readSnapshot(graphKey: string, graph: SqliteGraphTransaction, keys: SnapshotKeys): GraphSnapshot {
  const nodes = [...keys.nodes].map((key) => graph.node(key)).filter((node): node is GraphNode => node !== null);
  const edges = [
    ...[...keys.edges].map((key) => graph.edge(key)).filter((edge): edge is GraphEdge => edge !== null),
    ...[...keys.edgesOfNodes].flatMap((key) => graph.edgesOfNode(key)),
  ];
  return GraphSnapshot.of(graphKey, keys, nodes, edges);
}
