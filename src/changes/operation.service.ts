import { Inject, Injectable } from '@nestjs/common';
import type { ActionConversionResult } from '../conversation/action-conversion-result';
import type { ProposalBasis } from '../conversation/proposal-preview';
import { AppError } from '../errors/app-error';
import type { GraphChangeSet } from '../graph/graph-change-set';
import { GraphChangeNotifier } from '../graph/graph-change.notifier';
import { GraphDataSourceFactory } from '../graph/graph-data-source.factory';
import type { GraphStore } from '../graph/graph-store';
import { GRAPH_STORE } from '../graph/graph-store.token';
import { Logger } from '../observability/logger';
import { changeSetBetween, isEmptyChangeSet } from './change-set.diff';
import type { OperationRepository, OperationWrite } from './operation.repository';
import { OPERATION_REPOSITORY } from './operation-repository.token';
import { fingerprintOf } from './document.fingerprint';
import { GraphSnapshot, keysOfChanges, SnapshotKeys, unionKeys } from './graph-snapshot';
import { dataSourceSnapshots } from './graph-snapshot.source';
import type { OperationActor, OperationOutcome, OperationRecord, OperationStatus, TouchedDocument } from './operation';
import { emptyChanges } from './operation';
import { basisKeys, basisOf, changedSince } from './proposal-basis';
import { planRevert, revertKeys } from './revert.planner';

/** HITL_APPLY: `server` writes the graph; `client` sends the change to the caller's editor, which writes it. */
export type ApplyMode = 'server' | 'client';

/** A decision on a proposal (approval, autonomous, answered ask_first, an automation's run). */
export interface ProposalDecision {
  /** `<threadId>:<toolCallId>`: the same for every retry of the decision (operationIdOf). */
  operationId: string;
  workspace: string;
  graphKey: string;
  threadId: string;
  toolCallId: string;
  actor: OperationActor;
  /** What is applied: the proposal's preview, or the approved items of a batch. */
  changes: ActionConversionResult;
  /** What it was made against (the approved items' basis for part of a batch); null: not checked. */
  basis: ProposalBasis | null;
  mode: ApplyMode;
  /** Recorded with the outcome (a partly approved batch's items). */
  outcome?: Pick<OperationOutcome, 'appliedItems' | 'declinedItems'>;
}

/** A decision that applies nothing (a human's rejection): recorded so that a racing approval cannot also win. */
export type Rejection = Omit<ProposalDecision, 'changes' | 'basis' | 'mode' | 'outcome'> & { sheetId: string };

/** A revert of operations (undo, restore). */
export interface RevertRequest {
  operationId: string;
  workspace: string;
  graphKey: string;
  threadId: string;
  /** The ACTIONS_REVERTED event that records it in the thread. */
  messageId: string;
  actor: OperationActor;
  /** The operations to revert, newest first, each as it is in effect (not reverted). */
  operations: OperationRecord[];
  mode: ApplyMode;
}

/** A decision, and whether it was found recorded already (a retry: nothing was done again). */
export interface DecidedOperation {
  record: OperationRecord;
  replayed: boolean;
}

/** Attempts of a write whose graph keeps changing between its planning and its transaction. */
const MAX_ATTEMPTS = 5;

const logger = new Logger('changes');

/**
 * THE place a graph is changed on the assistant's behalf, whatever decided it: each
 * change is one operation, recorded in the change log in the same transaction as the graph write (OperationRepository),
 * under an id that is the same on every retry, so a change is applied once whatever fails, and a retry answers what
 * the first attempt did. Before anything is applied, the proposal's basis is checked against the graph as the user
 * sees it (stale: nothing applied), the inverse is computed from the stored documents it replaces, and the write
 * checks inside its transaction that the store still holds them. Reverts (undo, restore) are operations too, and
 * never overwrite a node or edge someone changed since.
 */
@Injectable()
export class OperationService {
  constructor(
    @Inject(OPERATION_REPOSITORY) private readonly repository: OperationRepository,
    @Inject(GRAPH_STORE) private readonly store: GraphStore,
    private readonly graphs: GraphDataSourceFactory,
    private readonly notifier: GraphChangeNotifier,
  ) {}

  /**
   * The basis of each change set (a proposal's, and each item's of a batch), as the user sees
   * the graph now, read once.
   */
  async basesOf(workspace: string, graphKey: string, changeSets: ActionConversionResult[]): Promise<ProposalBasis[]> {
    const keys = unionKeys(...changeSets.map((changes) => keysOfChanges(changes)));
    const [view, revision] = await Promise.all([
      this.viewSnapshot(workspace, graphKey, keys),
      this.repository.graphRevision(workspace, graphKey),
    ]);
    return changeSets.map((changes) => basisOf(changes, view, revision));
  }

  find(workspace: string, operationId: string): Promise<OperationRecord | null> {
    return this.repository.get(workspace, operationId);
  }

  /** The thread's operations, oldest first. */
  listForThread(workspace: string, threadId: string): Promise<OperationRecord[]> {
    return this.repository.listByThread(workspace, threadId);
  }

  /**
   * Applies (or sends) a decided proposal once. Recorded already → that record, nothing done. Its basis changed →
   * `stale`, nothing applied. The store refuses it (a key taken, a node gone) → `failed`, nothing applied.
   */
  async apply(decision: ProposalDecision): Promise<DecidedOperation> {
    const known = await this.repository.get(decision.workspace, decision.operationId);
    if (known) return { record: known, replayed: true };
    const { workspace, graphKey, changes, basis } = decision;
    const keys = basis ? unionKeys(keysOfChanges(changes), basisKeys(basis, changes)) : keysOfChanges(changes);
    for (let attempt = 1; ; attempt += 1) {
      const [view, stored] = await Promise.all([
        this.viewSnapshot(workspace, graphKey, keys),
        decision.mode === 'server' ? this.storedSnapshot(workspace, graphKey, keys) : null,
      ]);
      const changed = basis ? changedSince(basis, changes, view) : [];
      if (changed.length > 0) return this.decideWithoutChange(decision, 'stale', { changed });
      const before = stored ?? view;
      const after = before.clone();
      try {
        after.apply(changes);
      } catch (error) {
        if (!isRefusal(error)) throw error;
        return this.decideWithoutChange(decision, 'failed', { reason: error.message });
      }
      const record = this.recordOf(decision, decision.mode === 'server' ? 'applied' : 'sent', {
        changes,
        inverse: changeSetBetween(after, before, keys, changes.sheetId),
        touched: touchedBetween(before, after, keys),
        outcome: decision.outcome ?? {},
      });
      const committed = await this.commit({
        workspace,
        graphKey,
        record,
        changes: stored ? changes : null,
        expected: stored ? { keys, fingerprints: stored.fingerprints() } : null,
      });
      if (committed) return committed;
      if (attempt >= MAX_ATTEMPTS) throw graphKeepsChanging(graphKey);
    }
  }

  /** Records a rejection, unless another decision of the proposal was recorded first (then that one answers). */
  async reject(rejection: Rejection): Promise<DecidedOperation> {
    const { sheetId, ...decision } = rejection;
    return this.decideWithoutChange(
      { ...decision, changes: emptyChanges(sheetId), basis: null, mode: 'server' },
      'rejected',
      {},
    );
  }

  /**
   * Reverts operations (newest first) as one operation (`via: "undo"`): each part as the operation left it is put
   * back as it was before; a part changed since (stored, or live in an editor) is refused, as what depends on it.
   */
  async revert(request: RevertRequest): Promise<DecidedOperation> {
    const known = await this.repository.get(request.workspace, request.operationId);
    if (known) return { record: known, replayed: true };
    const { workspace, graphKey, operations } = request;
    const keys = revertKeys(operations);
    const sheetId = operations[0]?.changes.sheetId ?? '0';
    for (let attempt = 1; ; attempt += 1) {
      const [view, stored] = await Promise.all([
        this.viewSnapshot(workspace, graphKey, keys),
        this.storedSnapshot(workspace, graphKey, keys),
      ]);
      const base = request.mode === 'server' ? stored : view;
      const working = base.clone();
      const plans = operations.map((operation) => planRevert(operation, working, liveEdits(view, stored, keys)));
      const reverted = plans.filter((plan) => !isEmptyChangeSet(plan.applied)).map((plan) => plan.operationId);
      const changes = changeSetBetween(base, working, keys, sheetId);
      const record: OperationRecord = {
        operationId: request.operationId,
        workspace,
        graphKey,
        threadId: request.threadId,
        messageId: request.messageId,
        status: request.mode === 'server' ? 'applied' : 'sent',
        actor: request.actor,
        appliedTime: Date.now(),
        changes,
        inverse: changeSetBetween(working, base, keys, sheetId),
        touched: touchedBetween(base, working, keys),
        reverts: reverted,
        outcome: { reverted, refused: plans.flatMap((plan) => plan.refused) },
      };
      const server = request.mode === 'server' && !isEmptyChangeSet(changes);
      const committed = await this.commit({
        workspace,
        graphKey,
        record,
        changes: server ? changes : null,
        expected: server ? { keys, fingerprints: stored.fingerprints() } : null,
        reverts: reverted,
      });
      if (committed) return committed;
      if (attempt >= MAX_ATTEMPTS) throw graphKeepsChanging(graphKey);
    }
  }

  /** A decision that writes nothing to the graph: stale, failed, rejected (the first decision recorded wins). */
  private async decideWithoutChange(
    decision: ProposalDecision,
    status: Extract<OperationStatus, 'stale' | 'failed' | 'rejected'>,
    outcome: OperationOutcome,
  ): Promise<DecidedOperation> {
    const empty = emptyChanges(decision.changes.sheetId);
    const record = this.recordOf(decision, status, { changes: empty, inverse: empty, touched: [], outcome });
    const committed = await this.commit({
      workspace: decision.workspace,
      graphKey: decision.graphKey,
      record,
      changes: null,
      expected: null,
    });
    if (!committed) throw new AppError('internal', 'A decision without a graph write cannot find the graph moved');
    return committed;
  }

  /** The commit's decision, or null when the graph moved since it was planned (plan again). */
  private async commit(write: OperationWrite): Promise<DecidedOperation | null> {
    let committed;
    try {
      committed = await this.repository.commit(write);
    } catch (error) {
      // The in-memory plan passed: a refusal here means the graph moved in a way the expected documents do not show.
      if (!isRefusal(error)) throw error;
      logger.warn('operation_refused_by_store', { operationId: write.record.operationId, error: error.message });
      return null;
    }
    if (committed.outcome === 'moved') {
      logger.info('operation_graph_moved', {
        operationId: write.record.operationId,
        difference: committed.difference,
      });
      return null;
    }
    if (committed.outcome === 'exists') return { record: committed.record, replayed: true };
    const { record } = committed;
    if (write.changes) this.notifyStored(write.workspace, write.graphKey, write.changes);
    logger.info('operation_recorded', {
      operationId: record.operationId,
      threadId: record.threadId,
      status: record.status,
      via: record.actor.via,
    });
    return { record, replayed: false };
  }

  private recordOf(
    decision: ProposalDecision,
    status: OperationStatus,
    parts: Pick<OperationRecord, 'changes' | 'inverse' | 'touched' | 'outcome'>,
  ): OperationRecord {
    return {
      operationId: decision.operationId,
      workspace: decision.workspace,
      graphKey: decision.graphKey,
      threadId: decision.threadId,
      toolCallId: decision.toolCallId,
      status,
      actor: decision.actor,
      appliedTime: Date.now(),
      ...parts,
    };
  }

  private notifyStored(workspace: string, graphKey: string, changes: GraphChangeSet): void {
    const nodeKeys = [
      ...new Set([
        ...changes.nodesToCreate.map((node) => node._key),
        ...changes.instructions.map((instruction) => instruction.nodeKey),
      ]),
    ];
    this.notifier.notify({
      kind: 'stored',
      workspace,
      graphKey,
      nodeKeys,
      ...(changes.nodeKeysToDelete.length > 0 ? { deletedNodeKeys: [...changes.nodeKeysToDelete] } : {}),
    });
  }

  private viewSnapshot(workspace: string, graphKey: string, keys: SnapshotKeys): Promise<GraphSnapshot> {
    return GraphSnapshot.read(graphKey, dataSourceSnapshots(this.graphs.forWorkspace(workspace), graphKey), keys);
  }

  private storedSnapshot(workspace: string, graphKey: string, keys: SnapshotKeys): Promise<GraphSnapshot> {
    return GraphSnapshot.read(graphKey, dataSourceSnapshots(this.store.forWorkspace(workspace), graphKey), keys);
  }
}

/** The operation id of a proposal's decision: one per tool call of a thread, the same on every retry. */
export function operationIdOf(threadId: string, toolCallId: string): string {
  return `${threadId}:${toolCallId}`;
}

/** The nodes and edges whose content differs between two snapshots of the same keys. */
function touchedBetween(before: GraphSnapshot, after: GraphSnapshot, keys: SnapshotKeys): TouchedDocument[] {
  const touched: TouchedDocument[] = [];
  for (const key of [...keys.nodes].sort()) {
    const was = fingerprintOf(before.node(key));
    const is = fingerprintOf(after.node(key));
    if (was !== is) touched.push({ kind: 'node', key, before: was, after: is });
  }
  const edgeKeys = new Set([
    ...keys.edges,
    ...[...keys.edgesOfNodes].flatMap((key) => [...before.edgesOf(key), ...after.edgesOf(key)]),
  ]);
  for (const key of [...edgeKeys].sort()) {
    const was = fingerprintOf(before.edge(key));
    const is = fingerprintOf(after.edge(key));
    if (was !== is) touched.push({ kind: 'edge', key, before: was, after: is });
  }
  return touched;
}

/** Nodes and edges the user's view shows otherwise than the store: unsaved live edits ("node:<key>" / "edge:<key>"). */
function liveEdits(view: GraphSnapshot, stored: GraphSnapshot, keys: SnapshotKeys): Set<string> {
  const edited = new Set<string>();
  for (const key of keys.nodes) {
    if (fingerprintOf(view.node(key)) !== fingerprintOf(stored.node(key))) edited.add(`node:${key}`);
    if (view.edgesOf(key).join('\u0000') !== stored.edgesOf(key).join('\u0000')) edited.add(`node:${key}`);
  }
  for (const key of keys.edges)
    if (fingerprintOf(view.edge(key)) !== fingerprintOf(stored.edge(key))) edited.add(`edge:${key}`);
  return edited;
}

/** A store's refusal of a change set (the graph moved since the proposal): an outcome, not a failure. */
function isRefusal(error: unknown): error is AppError {
  return error instanceof AppError && ['not_found', 'conflict', 'bad_request'].includes(error.code);
}

function graphKeepsChanging(graphKey: string): AppError {
  return new AppError(
    'thread_busy',
    `Graph "${graphKey}" kept changing while the change was being applied; retry`,
    { graphKey },
    { retryable: true },
  );
}
