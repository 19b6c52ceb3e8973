import { LlmMessage, LlmToolCall, LlmToolMessage } from '../../conversation/llm-message';
import type { LlmProvider } from '../../providers/llm-provider';
import type { GraphRAGContext } from '../../conversation/graph-rag-context';
import type { PendingInterrupt, UsageTotals } from '../../threads/thread.types';
import { ActionConversionResult } from '../../conversation/action-conversion-result';
import type { ProposalReferenceCheck } from '../actions/proposal-reference.validator';
import { ProposedAction } from '../../conversation/proposed-action';
import { AgentTools } from '../tools/agent-tools';
import { AgentEventSink } from './agent-event.sink';
import { ToolCallSummary } from './agent-result';
import { Interrupt } from '../../conversation/interrupt';
import type { ThreadEvent } from '../../conversation/thread-event';
import type { ActionApplication, CheckedAction } from '../actions/action.applier';
import { UsageAccumulator } from './usage.accumulator';

/**
 * One atomic write the loop asks for (docs/threads.md): the messages of a round in order (an assistant
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
}

/** A commit as the loop hands it over: with the operation id it must be written under (idempotency). */
export interface AgentCommitRequest extends AgentCommit {
  /** `<runId>:<n>`, n counting the run's commits from 0: the same id when a commit is replayed. */
  operationId: string;
}

/** What became of a commit, for the round's trace (docs/observability.md, "Traces of the agent"). */
export interface AgentCommitReceipt {
  /** False when the operation was already applied (an idempotent replay): nothing was written twice. */
  applied: boolean;
  /** Times the commit was re-read and replayed after a revision conflict (0: written at once). */
  replays: number;
}

/**
 * A smaller context for the same request (docs/agent.md, "Context-length recovery"): what the model
 * is sent first, rebuilt with fewer retrieved nodes, shorter texts and less history, or null when it
 * cannot be made smaller. Called at most once per run, after the upstream answered `context_length`.
 */
export type ShrinkContext = () => Promise<LlmMessage[] | null>;

/** Events of a run (the loop never calls thread() or complete(): the caller owns those). */
export type AgentRunEvents = Pick<AgentEventSink, 'token' | 'toolStart' | 'toolResult' | 'event' | 'apply'>;

/**
 * Applies the proposals the action policy lets through without a human, and turns each applied
 * series into its ACTIONS_EXECUTED event (AppliedActionRecorder): the one place actions are applied
 * and recorded, for the loop and for an approval alike.
 */
export interface RunActions {
  /** Applies one checked proposal (autonomous); part of the current round's series. */
  applyAutonomous(action: CheckedAction): Promise<ActionApplication>;
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
  /** Persists one commit; a throw ends the run (the thread keeps what was committed before). */
  commit(commit: AgentCommitRequest): Promise<AgentCommitReceipt | void>;
  /** Names the run's commits (`<runId>:<n>`) and its trace lines. */
  runId: string;
  /** Context-length recovery; absent: a `context_length` answer fails the run at once. */
  shrinkContext?: ShrinkContext;
  /** Applies and records what the policy lets through (route `apply`). */
  actions: RunActions;
  /**
   * Checks a proposal's references against the graph before it interrupts (ProposalReferenceValidator):
   * a failed check is an error result the model can correct; the checked action (sheet names
   * resolved to ids) is the one proposed. Absent: every valid write call interrupts as parsed.
   */
  checkProposal?(action: ProposedAction): Promise<ProposalReferenceCheck>;
  /** The preview carried by an interrupt (ActionConverter output for the proposal). */
  preview(action: ProposedAction, toolCallId: string): Promise<ActionConversionResult>;
  /**
   * The provider of this run, resolved when it started (a workspace's provider configuration,
   * docs/provider-configs.md); absent: the loop's own.
   */
  provider?: LlmProvider;
  /**
   * Checked before every upstream call, after the process-wide budget: throws (budget_exceeded) when
   * the run's own budget is spent (an automation's per-run and monthly budgets, docs/automations.md).
   */
  assertBudget?(usage: UsageTotals): void;
  /** Usage attribution. */
  threadId: string;
  workspace: string;
  /** Handed to the provider (the offline provider answers from it). */
  retrievedContext?: GraphRAGContext;
  /**
   * The pacer of each upstream call's stream (one per call): asked before each chunk is relayed.
   * Absent: the stream is relayed as it comes.
   */
  streamPacer?(): StreamPacer;
  /**
   * Resume: the results that close the interrupted call (and anything already decided), then the
   * calls that followed it in the same assistant message, processed before the next upstream call.
   */
  continuation?: { results: LlmToolMessage[]; remainingToolCalls: LlmToolCall[] };
}

/**
 * Why a run stopped (docs/agent.md, "Smart stopping"; logged and counted: docs/observability.md):
 * `answer` (the model answered without asking for tools), `no_progress` (its tool rounds stopped
 * bringing anything new: ended with a last call without tools), `rounds_spent` (AI_MAX_TOOL_ROUNDS
 * reached: the same), `interrupt` (waiting for a human), `aborted` (stopped by the user, a
 * disconnect or shutdown); `error` is the caller's, for a run that threw.
 */
export type RunStopReason = 'answer' | 'no_progress' | 'rounds_spent' | 'interrupt' | 'aborted' | 'error';

/** How much work a run did, for its log line and the efficiency metrics. */
export interface AgentRunStats {
  stopReason: Exclude<RunStopReason, 'error'>;
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
