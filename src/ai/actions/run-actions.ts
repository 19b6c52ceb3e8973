import type { Locale } from '../../config/app-config';
import { ApplyMode, OperationService, DecidedOperation, operationIdOf } from '../../changes/operation.service';
import type { OperationActor, OperationRecord } from '../../changes/operation';
import type { ActionConversionResult } from '../../conversation/action-conversion-result';
import type { ProposalBasis } from '../../conversation/proposal-preview';
import type { ProposedAction } from '../../conversation/proposed-action';
import type { ThreadEvent } from '../../conversation/thread-event';
import type { Graph } from '../../graph/graph.types';
import type { MutableGraphDataSource } from '../../graph/mutable-graph-data-source';
import type { GraphRagRetriever } from '../../rag/graph-rag.retriever';
import type { PendingItem } from '../../threads/thread.types';
import type { RunProposals } from '../agent/agent-run';
import { ActingIdentity, actorOf } from '../authority/acting-identity';
import { actionsExecutedEvent, ExecutedAction } from '../events/actions-executed.event';
import type { ActionApplication, CheckedAction } from './checked-action';
import { toolResultTexts, ToolResultTexts } from '../tools/tool-result.texts';
import { ProposalPreviewBuilder } from './proposal-preview.builder';
import { ProposalSchemaChecker } from './proposal-schema.checker';
import { ProposalReferenceCheck, ProposalReferenceValidator } from './proposal-reference.validator';

export interface RunActionsOptions {
  operations: OperationService;
  dataSource: MutableGraphDataSource;
  threadId: string;
  graphKey: string;
  graph: Graph | null;
  /** Who the run acts as: recorded with what it applies without a human. */
  acting: ActingIdentity;
  /** HITL_APPLY: applied here, or sent to the caller's editor. */
  mode: ApplyMode;
  locale: Locale;
  /** Node types a `create` block of the question named: their inferred data schema checks the nodes proposed. */
  createTypes?: readonly string[];
  /** Forgets a graph that changed (or may change soon through the client): the next question reads it afresh. */
  retrievalCache: Pick<GraphRagRetriever, 'clearCache'>;
}

/** What approving a proposal applies: all of it, or some items of a batch, with their basis. */
export interface ApprovedChange {
  changes: ActionConversionResult;
  basis: ProposalBasis | null;
  appliedItems?: string[];
  declinedItems?: string[];
}

/**
 * The actions of one run on one graph: proposals checked against the graph, turned
 * into their preview, and applied through THE OperationService, each decision one operation whose id is its thread
 * and tool call, so a retry answers what the first attempt did; each applied series becomes its ACTIONS_EXECUTED
 * event: an approved proposal is a series of its own, the proposals applied without a human in one round are one
 * series, closed when the round is committed (takeEvents). Events are stored by the commit they are taken for, never
 * by a transport.
 */
export class RunActions implements RunProposals {
  private readonly references: ProposalReferenceValidator;
  private readonly schemas: ProposalSchemaChecker;
  private readonly texts: ToolResultTexts;
  private readonly previews: ProposalPreviewBuilder;
  private readonly prepared = new Map<string, PendingItem[]>();
  private readonly closed: ThreadEvent[] = [];
  private round: Array<{ executed: ExecutedAction; application: ActionApplication }> = [];

  constructor(private readonly options: RunActionsOptions) {
    const { operations, dataSource, graphKey, graph, threadId, locale } = options;
    this.references = new ProposalReferenceValidator(dataSource, graphKey, locale);
    this.schemas = new ProposalSchemaChecker(dataSource, graphKey, new Set(options.createTypes ?? []), locale);
    this.texts = toolResultTexts(locale);
    this.previews = new ProposalPreviewBuilder(operations, dataSource, graphKey, graph, threadId);
  }

  /** Its references against the graph, then the data of the nodes it creates against their type's schema. */
  async check(action: ProposedAction): Promise<ProposalReferenceCheck> {
    const checked = await this.references.validate(action);
    if (!checked.ok) return checked;
    const problems = await this.schemas.problems(checked.action);
    return problems.length > 0 ? { ok: false, message: this.texts.proposalDataRefused(problems.join(' ')) } : checked;
  }

  async preview(action: ProposedAction, toolCallId: string) {
    const prepared = await this.previews.prepare(action, toolCallId);
    if (prepared.items) this.prepared.set(toolCallId, prepared.items);
    return prepared.preview;
  }

  /** A batch proposal's items (change set and basis each), kept with its interrupt. */
  preparedItems(toolCallId: string): PendingItem[] | undefined {
    return this.prepared.get(toolCallId);
  }

  async applyAutonomous(action: CheckedAction, via: 'autonomous' | 'ask_first'): Promise<ActionApplication> {
    const decided = await this.decide(action.toolCallId, actorOf(this.options.acting, via), {
      changes: action.preview,
      basis: action.preview.basis,
    });
    const application = applicationOf(decided.record);
    this.round.push({ executed: executedOf(action.preview, decided.record), application });
    return application;
  }

  /**
   * A proposal a human approved (`approver`), applied as one operation, its own series. A retry after a crash finds
   * the operation and answers it again (the event is written again, since the first attempt's commit never landed).
   */
  async applyApproved(
    toolCallId: string,
    approver: OperationActor,
    approved: ApprovedChange,
  ): Promise<{ application: ActionApplication; record: OperationRecord; replayed: boolean }> {
    const decided = await this.decide(toolCallId, approver, approved);
    this.closed.push(
      this.eventOf([{ executed: executedOf(approved.changes, decided.record), record: decided.record }]),
    );
    return { application: applicationOf(decided.record), record: decided.record, replayed: decided.replayed };
  }

  /** A rejection recorded, unless the proposal was decided first (a racing approval, or one applied before a crash). */
  async reject(toolCallId: string, approver: OperationActor, sheetId: string): Promise<DecidedOperation> {
    const { threadId, graphKey, dataSource } = this.options;
    const decided = await this.options.operations.reject({
      operationId: operationIdOf(threadId, toolCallId),
      workspace: dataSource.workspace,
      graphKey,
      threadId,
      toolCallId,
      actor: approver,
      sheetId,
    });
    if (decided.record.status !== 'rejected')
      this.closed.push(
        this.eventOf([{ executed: executedOf(decided.record.changes, decided.record), record: decided.record }]),
      );
    return decided;
  }

  /**
   * The ACTIONS_EXECUTED event of operations a crash kept out of their thread (applied, their round never
   * committed): they are told to the thread and the model as applied before the interruption.
   */
  recoveredEvent(records: readonly OperationRecord[]): ThreadEvent {
    return this.eventOf(
      records.map((record) => ({ executed: executedOf(record.changes, record), record })),
      true,
    );
  }

  takeEvents(): ThreadEvent[] {
    if (this.round.length > 0) {
      this.closed.push(
        this.eventOf(
          this.round.map(({ executed, application }) => ({ executed, operationId: application.operationId })),
        ),
      );
    }
    this.round = [];
    return this.closed.splice(0);
  }

  private async decide(toolCallId: string, actor: OperationActor, change: ApprovedChange): Promise<DecidedOperation> {
    const { threadId, graphKey, dataSource, mode } = this.options;
    const decided = await this.options.operations.apply({
      operationId: operationIdOf(threadId, toolCallId),
      workspace: dataSource.workspace,
      graphKey,
      threadId,
      toolCallId,
      actor,
      changes: change.changes,
      basis: change.basis,
      mode,
      ...(change.appliedItems
        ? { outcome: { appliedItems: change.appliedItems, declinedItems: change.declinedItems } }
        : {}),
    });
    // The graph changed, may change soon through the client, or moved on since the proposal: the next question reads it afresh.
    this.options.retrievalCache.clearCache(this.options.graphKey, this.options.dataSource.workspace);
    return decided;
  }

  private eventOf(
    series: ReadonlyArray<{ executed: ExecutedAction; record?: OperationRecord; operationId?: string }>,
    recovered = false,
  ): ThreadEvent {
    const byClient =
      this.options.mode === 'client' || series.some(({ record }) => record !== undefined && record.status === 'sent');
    return actionsExecutedEvent({
      appliedBy: byClient ? 'client' : 'server',
      sheetNames: this.options.graph?.sheetsList ?? {},
      actions: series.map(({ executed }) => executed),
      operationIds: series.map(({ record, operationId }) => record?.operationId ?? operationId ?? ''),
      recovered,
    });
  }
}

/** What the loop and the settler are told an operation became. */
export function applicationOf(record: OperationRecord): ActionApplication {
  const { operationId } = record;
  switch (record.status) {
    case 'applied':
      return { status: 'applied', appliedBy: 'server', operationId };
    case 'sent':
      return { status: 'applied', appliedBy: 'client', operationId };
    case 'stale':
      return { status: 'stale', changed: record.outcome.changed ?? [], operationId };
    case 'failed':
      return { status: 'failed', reason: record.outcome.reason ?? 'the graph refused it', operationId };
    case 'rejected':
      return { status: 'failed', reason: 'it was rejected', operationId };
  }
}

function executedOf(changes: ActionConversionResult, record: OperationRecord): ExecutedAction {
  switch (record.status) {
    case 'applied':
    case 'sent':
      return { preview: changes };
    case 'stale': {
      const changed = (record.outcome.changed ?? []).map((item) => `${item.kind} ${item.key} ${item.change}`);
      return { preview: changes, error: `the graph changed since the proposal (${changed.join(', ')})` };
    }
    default:
      return { preview: changes, error: record.outcome.reason ?? 'not applied' };
  }
}
