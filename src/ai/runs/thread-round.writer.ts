import type { ActingIdentity } from '../../policy/acting-identity';
import { toEventMessage, toThreadMessage } from '../../threads/thread-message.factory';
import type { ThreadMessage, ThreadRecord } from '../../threads/thread.types';
import type { RunActions } from '../actions/run-actions';
import type { AgentCommit, AgentCommitReceipt, AgentCommitRequest, RoundCommits } from '../agent/agent-run';
import type { RunAuthority } from '../authority/run-authority';
import type { ThreadRun } from './thread-runner';

/**
 * Where the loop's commits of one run go: through the run's commit path (ThreadRun.commit: a
 * revision conflict replayed, a lost lease fatal), each on the thread as the previous one left it; the run's last
 * one ends the run in the same write. A new pending
 * interrupt keeps what its resume goes on with: the run's authority (levels and the user's yeses), who it acts as, and
 * a batch proposal's items.
 */
export class ThreadRoundWriter implements RoundCommits {
  constructor(
    private readonly run: ThreadRun,
    private current: ThreadRecord,
    private readonly state: { authority: RunAuthority; acting: ActingIdentity; actions: RunActions },
  ) {}

  /** The thread as the last commit left it. */
  get record(): ThreadRecord {
    return this.current;
  }

  async commit(commit: AgentCommitRequest): Promise<AgentCommitReceipt> {
    const { authority, acting, actions } = this.state;
    const pending = commit.pendingInterrupt;
    const items = pending ? actions.preparedItems(pending.interrupt.toolCallId) : undefined;
    const pendingInterrupt = pending
      ? { ...pending, policy: authority.snapshot(), acting, ...(items ? { items } : {}) }
      : pending;
    const receipt = await this.run.commit(
      this.current,
      {
        operationId: commit.operationId,
        append: toThreadMessages(commit),
        ...(pendingInterrupt !== undefined ? { pendingInterrupt } : {}),
      },
      { last: commit.last === true },
    );
    this.current = receipt.record;
    return { applied: receipt.applied, replays: receipt.replays };
  }
}

function toThreadMessages(commit: AgentCommit): ThreadMessage[] {
  const createdTime = Date.now();
  return [
    ...commit.messages.map((message) =>
      toThreadMessage(message, { createdTime, aborted: commit.aborted === true && message.role === 'assistant' }),
    ),
    ...(commit.events ?? []).map((event) => toEventMessage(event, createdTime)),
  ];
}
