import type { GraphChangeSet } from '../graph/graph-change-set';
import type { SnapshotFingerprints, SnapshotKeys } from './graph-snapshot';
import type { OperationRecord } from './operation';

/** One atomic write of the change log and the graph (OperationRepository.commit). */
export interface OperationWrite {
  workspace: string;
  graphKey: string;
  /** The operation recorded: nothing is written when its id is already recorded. */
  record: OperationRecord;
  /** Written to the graph in the same transaction (null: a decision that changes nothing). */
  changes: GraphChangeSet | null;
  /**
   * The stored documents the write was planned against (their keys and fingerprints): when the store holds anything
   * else inside the transaction, nothing is written (`moved`) and the caller plans again.
   */
  expected: { keys: SnapshotKeys; fingerprints: SnapshotFingerprints } | null;
  /** Operations this one reverts: each gets `revertedBy` in the same transaction. */
  reverts?: string[];
}

export type OperationCommit =
  | { outcome: 'recorded'; record: OperationRecord }
  /** The operation was recorded already (a retry, or a racing decision): nothing written, the first record answers. */
  | { outcome: 'exists'; record: OperationRecord }
  /** The stored documents are not those it was planned against: nothing written. */
  | { outcome: 'moved'; difference: string };

/**
 * The change log: every decided change of a graph, keyed by operation id, written in
 * the same transaction as the graph change it records (port; adapters: SQLite, ArangoDB; one contract suite in
 * test/contract/). Every query names the workspace.
 */
export interface OperationRepository {
  /**
   * Atomically: the record is new, and the graph holds what `expected` says → the change set is applied (the
   * planner's not_found / conflict / bad_request throw before anything is written), the record stored, the reverted
   * operations marked. Otherwise nothing is written and the outcome says why.
   */
  commit(write: OperationWrite): Promise<OperationCommit>;
  get(workspace: string, operationId: string): Promise<OperationRecord | null>;
  /** The thread's operations, oldest first. */
  listByThread(workspace: string, threadId: string): Promise<OperationRecord[]>;
  /** The store's revision of the graph (opaque), or null when it keeps none. */
  graphRevision(workspace: string, graphKey: string): Promise<string | null>;
  /** Deletes the records decided before `before` (retention); answers how many. */
  prune(before: number): Promise<number>;
  close?(): Promise<void>;
}
