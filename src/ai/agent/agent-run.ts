import { LlmMessage, LlmToolCall, LlmToolMessage } from '../../conversation/llm-message';
import type { LlmProvider } from '../../providers/llm-provider';
import type { GraphRAGContext } from '../../conversation/graph-rag-context';
import type { PendingInterrupt, UsageTotals } from '../../threads/thread.types';
import type { ProposalPreview } from '../../conversation/proposal-preview';
import type { ProposalReferenceCheck } from '../actions/proposal-reference.validator';
import { ProposedAction } from '../../conversation/proposed-action';
import { AgentTools } from '../tools/agent-tools';
import { AgentEventSink } from './agent-event.sink';
import { ToolCallSummary } from './agent-result';
import { Interrupt } from '../../conversation/interrupt';
import type { ThreadEvent } from '../../conversation/thread-event';
import type { ActionApplication, CheckedAction } from '../actions/checked-action';
import { UsageAccumulator } from './usage.accumulator';

/**
 * One atomic write the loop asks for: the messages of a round in order (an assistant
 * message with its tool calls and all their results; or a final answer; or, on resume, the results
 * that close the interrupted batch), plus the interrupt state. Handed to the caller BEFORE the next
 * upstream call, so a crash never loses a round that the model built on.
 */
export interface AgentCommit {
  messages: LlmMessage[];
  /** The assistant message is a partial answer: the generation was stopped. */
  aborted?: true;
  /** A new pending interrupt; null clears it; absent leaves it as is. */
  pendingInterrupt?: PendingInterrupt | null;
  /** Thread events stored after the messages: the ACTIONS_EXECUTED of what this commit's round applied. */
  events?: ThreadEvent[];
  /** The run's last write (its answer, or the interrupt it stops on): the run may end in the same write. */
  last?: true;
}

/** A commit as the loop hands it over: with the operation id it must be written under (idempotency). */
export interface AgentCommitRequest extends AgentCommit {
  /** `<agentRunId>:<n>`, n counting the run's commits from 0: the same id when a commit is replayed. */
  operationId: string;
}

/** What became of a commit, for the round's trace. */
export interface AgentCommitReceipt {
  /** False when the operation was already applied (an idempotent replay): nothing was written twice. */
  applied: boolean;
  /** Times the commit was re-read and replayed after a revision conflict (0: written at once). */
  replays: number;
}

/** Where the loop's commits go (the run's ThreadRoundWriter): each persisted before the next upstream call. */
export interface RoundCommits {
  /** Persists one commit; a throw ends the run (the thread keeps what was committed before). */
  commit(commit: AgentCommitRequest): Promise<AgentCommitReceipt | void>;
}

/**
 * A smaller context for the same request: what the model is sent first,
 * rebuilt with fewer retrieved nodes, shorter texts and less history, or null when it cannot be made smaller. Asked
 * at most once per run, after the upstream answered `context_length`.
 */
export interface ContextShrinker {
  shrink(): Promise<LlmMessage[] | null>;
}

/** A run's own budget (an automation's per-run and monthly budgets). */
export interface RunBudget {
  /** Throws budget_exceeded when it is spent, given the run's usage so far. */
  assertWithin(usage: UsageTotals): void;
}

/** Events of a run (the loop never calls thread() or complete(): the caller owns those). */
export type AgentRunEvents = Pick<AgentEventSink, 'token' | 'toolStart' | 'toolResult' | 'event' | 'apply'>;

/**
 * The run's proposals (RunActions): checked against the graph, turned into their preview, applied without a human
 * when the action policy lets them through (one operation each: OperationService), and each applied series turned
 * into its ACTIONS_EXECUTED event: the one place actions are applied and recorded, for the loop and an approval alike.
 */
export interface RunProposals {
  /**
   * Checks a proposal's references against the graph before it interrupts (ProposalReferenceValidator): a failed
   * check is an error result the model can correct; the checked action (sheet names resolved to ids) is the one
   * proposed.
   */
  check(action: ProposedAction): Promise<ProposalReferenceCheck>;
  /** The preview an interrupt carries: the change set, what it was made against, a batch's items. */
  preview(action: ProposedAction, toolCallId: string): Promise<ProposalPreview>;
  /** Applies one checked proposal without a human (`via` the policy alone or a yes); part of the current round's series. */
  applyAutonomous(action: CheckedAction, via: 'autonomous' | 'ask_first'): Promise<ActionApplication>;
  /** The events of the series applied since the last call, in order, to store in the commit being made. */
  takeEvents(): ThreadEvent[];
}

/**
 * Paces one upstream call's stream: a run's stream may give way to other work of the process
 * (new conversations' setups: SetupFirstScheduling).
 */
export interface StreamPacer {
  /** Null: relay the next chunk now; a promise: relay it once settled (it never rejects). */
  beforeChunk(): Promise<void> | null;
}

export interface AgentRunRequest {
  /** What the model is sent first (history, current context, question), already sanitized. Not mutated. */
  messages: LlmMessage[];
  tools: AgentTools;
  events: AgentRunEvents;
  /** Cancels the upstream request; the run ends with the partial text. */
  signal: AbortSignal;
  /** Every upstream call is added here, also when the run fails or is aborted. */
  usage: UsageAccumulator;
  /** Names the run's commits (`<agentRunId>:<n>`) and its trace lines. */
  agentRunId: string;
  /** Usage attribution and isolation: every message sent must belong to the thread. */
  threadId: string;
  workspace: string;
  rounds: RoundCommits;
  proposals: RunProposals;
  /** Context-length recovery; absent: a `context_length` answer fails the run at once. */
  shrinker?: ContextShrinker;
  /** The provider of this run, resolved when it started; absent: the loop's own. */
  provider?: LlmProvider;
  /** Checked before every upstream call, after the process-wide budget. */
  budget?: RunBudget;
  /** Handed to the provider (the offline provider answers from it). */
  retrievedContext?: GraphRAGContext;
  /** Paces each upstream call's stream (the run: ThreadRun.streamPacer); absent: relayed as it comes. */
  pacing?: { streamPacer(): StreamPacer };
  /**
   * Resume: the results that close the interrupted call (and anything already decided), then the calls that followed
   * it in the same assistant message, processed before the next upstream call; `firstCallIndex` is the place of the
   * first of them in that message (the per-reply cap counts the whole reply). `final`: the run ends once they are
   * committed, with no upstream call (a decision on a proposal an MCP client made: no model of ours waits for it).
   */
  continuation?: {
    results: LlmToolMessage[];
    remainingToolCalls: LlmToolCall[];
    firstCallIndex: number;
    final?: boolean;
  };
}

/**
 * Why a run stopped (logged and counted):
 * `answer` (the model answered without asking for tools), `no_progress` (its tool rounds stopped
 * bringing anything new: ended with a last call without tools), `rounds_spent` (AI_MAX_TOOL_ROUNDS
 * reached: the same), `interrupt` (waiting for a human), `aborted` (stopped by the user, a
 * disconnect or shutdown); `error` is the caller's, for a run that threw.
 */
/** `not_sent`: the loop never ran (a large prompt declined by the user, or over the limit in an automation). */
export type AgentRunStopReason =
  'answer' | 'no_progress' | 'rounds_spent' | 'interrupt' | 'aborted' | 'not_sent' | 'error';

/** How much work a run did, for its log line and the efficiency metrics. */
export interface AgentRunStats {
  stopReason: Exclude<AgentRunStopReason, 'error'>;
  /** Tool rounds: upstream calls whose tool calls were processed. */
  rounds: number;
  /** Tool results that succeeded (reads that ran, decisions applied). */
  toolResults: number;
}

/** What a run wrote besides its messages: the events it committed, and the actions it sent to the client to apply. */
export interface RunWrites {
  events: ThreadEvent[];
  /** HITL_APPLY=client: applied without a human, for the caller's editor to apply (also sent as `apply` events). */
  actions: CheckedAction[];
}

export type AgentRunOutcome = RunWrites &
  (
    | { type: 'message'; text: string; toolCalls: ToolCallSummary[]; aborted: boolean; stats: AgentRunStats }
    | {
        type: 'interrupt';
        text: string;
        toolCalls: ToolCallSummary[];
        interrupt: Interrupt;
        pending: PendingInterrupt;
        stats: AgentRunStats;
      }
  );
