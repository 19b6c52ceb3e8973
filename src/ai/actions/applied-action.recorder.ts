import type { ThreadEvent } from '../../conversation/thread-event';
import { MutableGraphDataSource } from '../../graph/mutable-graph-data-source';
import type { RunActions } from '../agent/agent-run';
import { actionsExecutedEvent, ExecutedAction } from '../events/actions-executed.event';
import { ActionApplication, ActionApplier, CheckedAction } from './action.applier';

/**
 * The actions one run applies to one graph, through THE ActionApplier, and the ACTIONS_EXECUTED event
 * of each applied series (docs/protocol.md §8.3): an approved proposal is a series of its own; the
 * proposals the policy applied without a human in one round are one series, closed when the round is
 * committed (takeEvents). The events are stored by the commit they are taken for, never by a transport.
 */
export class AppliedActionRecorder implements RunActions {
  private readonly closed: ThreadEvent[] = [];
  private round: Array<{ executed: ExecutedAction; application: ActionApplication }> = [];

  constructor(
    private readonly applier: ActionApplier,
    private readonly dataSource: MutableGraphDataSource,
    private readonly graphKey: string,
    /** The graph's sheets list, to name sheets in the events. */
    private readonly sheetNames: Readonly<Record<string, string>>,
  ) {}

  /** A proposal the human approved: applied, and recorded as a series of its own. */
  async applyApproved(action: CheckedAction): Promise<ActionApplication> {
    const application = await this.applier.apply(action, this.dataSource, this.graphKey);
    this.closed.push(this.eventOf([{ executed: executedOf(action, application), application }]));
    return application;
  }

  async applyAutonomous(action: CheckedAction): Promise<ActionApplication> {
    const application = await this.applier.apply(action, this.dataSource, this.graphKey);
    this.round.push({ executed: executedOf(action, application), application });
    return application;
  }

  takeEvents(): ThreadEvent[] {
    if (this.round.length > 0) this.closed.push(this.eventOf(this.round));
    this.round = [];
    return this.closed.splice(0);
  }

  private eventOf(series: ReadonlyArray<{ executed: ExecutedAction; application: ActionApplication }>): ThreadEvent {
    const byClient = series.some(
      ({ application }) => application.status === 'applied' && application.appliedBy === 'client',
    );
    return actionsExecutedEvent({
      appliedBy: byClient ? 'client' : 'server',
      sheetNames: this.sheetNames,
      actions: series.map(({ executed }) => executed),
    });
  }
}

function executedOf(action: CheckedAction, application: ActionApplication): ExecutedAction {
  return application.status === 'failed'
    ? { preview: action.preview, error: application.reason }
    : { preview: action.preview };
}
