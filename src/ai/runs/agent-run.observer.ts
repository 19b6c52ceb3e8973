import type { AgentRunStopReason } from '../agent/agent-run';
import type { CommitConflictObserver } from './round-commit.replayer';

/** A chat, a resume, an automation's run, or a change an MCP client proposed (recorded on a thread of its own, no loop). */
export type RunKind = 'chat' | 'resume' | 'automation' | 'proposal';

/** How a run ended, as its log line and the metrics see it. */
export interface RunEnd {
  kind: RunKind;
  stopReason: AgentRunStopReason;
  /** Tool rounds (upstream calls whose tool calls were processed). */
  rounds: number;
  /** Tool calls the model made. */
  toolCalls: number;
  /** Tool results that succeeded. */
  toolResults: number;
}

/** Told how each run ended and how each commit conflict went (metrics); AiModule binds it to AgentRunMetrics. */
export interface AgentRunObserver extends CommitConflictObserver {
  runEnded(end: RunEnd): void;
}
