import { Database } from 'arangojs';
import { ensureDocumentCollection } from '../../database/arango/arango-collection.ensurer';
import { hashedDocumentKey } from '../../database/arango/arango-hashed.key';
import { ArangoQueryExecutor } from '../../database/arango/arango-query.executor';
import { runArangoSchemaSetup } from '../../database/arango/arango-schema.setup';
import { ArangoGraphStore } from '../../graph/arango/arango-graph.store';
import { ARANGO_GRAPH_NAMES } from '../../graph/arango/arango-graph.names';
import type { OperationCommit, OperationRepository, OperationWrite } from '../operation.repository';
import { fingerprintDifference, GraphSnapshot } from '../graph-snapshot';
import type { OperationRecord } from '../operation';
import { ArangoOperationQueries, ArangoOperationDocument } from './arango-operation.queries';

/** The collection of this service's own: one document per operation. */
export const ARANGO_OPERATIONS = 'nodius_ai_operations';

/**
 * The change log on ArangoDB (STORE=arango): `nodius_ai_operations`, `_key` hashed from the workspace and the
 * operation id. A commit is ONE stream transaction of the graph store (ArangoGraphStore.transaction) on the nodes,
 * the edges and this collection: the record checked absent, the stored documents checked, the change set applied,
 * the record inserted. Two racing commits of one operation: one wins, the other finds its record (the unique `_key`).
 */
export class ArangoOperationRepository implements OperationRepository {
  private readonly queries: ArangoOperationQueries;
  private readonly executor: ArangoQueryExecutor;

  constructor(
    db: Database,
    private readonly graphs: ArangoGraphStore,
  ) {
    this.queries = new ArangoOperationQueries(
      db.collection(ARANGO_OPERATIONS),
      db.collection(ARANGO_GRAPH_NAMES.graphs),
    );
    this.executor = new ArangoQueryExecutor(db);
  }

  /** Ensures the collection and its indexes (idempotent, safe when several instances start at once). */
  static async open(db: Database, graphs: ArangoGraphStore): Promise<ArangoOperationRepository> {
    await runArangoSchemaSetup(db, 'change-log schema', async () => {
      await ensureDocumentCollection(db, ARANGO_OPERATIONS);
      const collection = db.collection(ARANGO_OPERATIONS);
      await collection.ensureIndex({
        type: 'persistent',
        fields: ['workspace', 'threadId', 'appliedTime'],
        inBackground: true,
      });
      await collection.ensureIndex({ type: 'persistent', fields: ['appliedTime'], inBackground: true });
    });
    return new ArangoOperationRepository(db, graphs);
  }

  async commit(write: OperationWrite): Promise<OperationCommit> {
    const { workspace, graphKey, record } = write;
    try {
      return await this.graphs.transaction(workspace, graphKey, [ARANGO_OPERATIONS], async (graph) => {
        const [existing] = await graph.step<ArangoOperationDocument>(
          this.queries.operation(keyOf(workspace, record.operationId), workspace),
        );
        if (existing) return { outcome: 'exists', record: toRecord(existing) };
        if (write.expected) {
          const { keys } = write.expected;
          const [nodes, edges, touching] = await Promise.all([
            graph.nodes([...keys.nodes]),
            graph.edges([...keys.edges]),
            graph.edgesOfNodes([...keys.edgesOfNodes]),
          ]);
          const stored = GraphSnapshot.of(graphKey, keys, nodes, [...edges, ...touching]);
          const difference = fingerprintDifference(write.expected.fingerprints, stored.fingerprints());
          if (difference) return { outcome: 'moved', difference };
        }
        if (write.changes) await graph.apply(write.changes);
        const { revertedBy: _revertedBy, ...stored } = record;
        await graph.step(this.queries.insert({ ...stored, _key: keyOf(workspace, record.operationId) }));
        if (write.reverts?.length)
          await graph.step(
            this.queries.markReverted(
              workspace,
              write.reverts.map((id) => keyOf(workspace, id)),
              record.operationId,
            ),
          );
        return { outcome: 'recorded', record };
      });
    } catch (error) {
      // A racing commit of the same operation won (the unique key): its record answers.
      const existing = await this.get(workspace, record.operationId);
      if (existing) return { outcome: 'exists', record: existing };
      throw error;
    }
  }

  async get(workspace: string, operationId: string): Promise<OperationRecord | null> {
    const stored = await this.executor.first<ArangoOperationDocument>(
      this.queries.operation(keyOf(workspace, operationId), workspace),
      'change_log_get',
    );
    return stored ? toRecord(stored) : null;
  }

  async listByThread(workspace: string, threadId: string): Promise<OperationRecord[]> {
    return (
      await this.executor.all<ArangoOperationDocument>(this.queries.byThread(workspace, threadId), 'change_log_list')
    ).map(toRecord);
  }

  async graphRevision(workspace: string, graphKey: string): Promise<string | null> {
    return (
      (await this.executor.first<string>(this.queries.graphRevision(workspace, graphKey), 'graph_revision')) ?? null
    );
  }

  async prune(before: number): Promise<number> {
    return (await this.executor.first<number>(this.queries.prune(before), 'change_log_prune')) ?? 0;
  }
}

function keyOf(workspace: string, operationId: string): string {
  return hashedDocumentKey('op', [workspace, operationId]);
}

function toRecord(stored: Omit<ArangoOperationDocument, '_key'> & { _key?: string }): OperationRecord {
  const { _key: _ignored, revertedBy, ...record } = stored;
  return revertedBy ? { ...record, revertedBy } : record;
}
