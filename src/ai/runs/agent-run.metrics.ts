import { Counter, Histogram, Registry } from 'prom-client';
import type { AgentRunObserver, RunEnd } from './agent-run.observer';
import { runEfficiency } from './run-efficiency';

/** Stop reasons that end a run with an answer (the efficiency metrics count those only). */
const ANSWERS: ReadonlySet<RunEnd['stopReason']> = new Set(['answer', 'no_progress', 'rounds_spent']);

/**
 * Why runs stop and how much work their answers took: runs by stop reason,
 * and for every answer its tool rounds, its tool calls and its efficiency ratio (runEfficiency
 * against AI_MAX_TOOL_ROUNDS); commit conflicts by outcome.
 */
export class AgentRunMetrics implements AgentRunObserver {
  private readonly runs: Counter<'kind' | 'stop_reason'>;
  private readonly rounds: Histogram;
  private readonly toolCalls: Histogram;
  private readonly efficiency: Histogram;
  private readonly conflicts: Counter<'outcome'>;

  constructor(
    registry: Registry,
    private readonly maxToolRounds: number,
  ) {
    this.runs = new Counter({
      name: 'graph_ai_agent_runs_total',
      help: 'Agent runs (chat, resume) by why they stopped: answer, no_progress, rounds_spent, interrupt, aborted, error.',
      labelNames: ['kind', 'stop_reason'],
      registers: [registry],
    });
    this.rounds = new Histogram({
      name: 'graph_ai_agent_answer_rounds',
      help: 'Tool rounds (upstream calls whose tool calls ran) per answer.',
      buckets: [0, 1, 2, 3, 4, 5, 6, 8, 10, 15, 20],
      registers: [registry],
    });
    this.toolCalls = new Histogram({
      name: 'graph_ai_agent_answer_tool_calls',
      help: 'Tool calls per answer.',
      buckets: [0, 1, 2, 3, 5, 8, 10, 15, 20, 30, 50],
      registers: [registry],
    });
    this.efficiency = new Histogram({
      name: 'graph_ai_agent_answer_efficiency_percent',
      help: 'Efficiency of each answer, seed 003 formula (100 = direct answer; 90+ excellent, 70-89 good, 50-69 fair, <50 critical).',
      buckets: [25, 50, 60, 70, 80, 90, 95, 100],
      registers: [registry],
    });
    this.conflicts = new Counter({
      name: 'graph_ai_thread_commit_conflicts_total',
      help: 'Round commits that met a revision conflict, by outcome: replayed (written after re-reading), failed (still conflicting after the replays), lease_lost.',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }

  runEnded(end: RunEnd): void {
    this.runs.inc({ kind: end.kind, stop_reason: end.stopReason });
    if (!ANSWERS.has(end.stopReason)) return;
    this.rounds.observe(end.rounds);
    this.toolCalls.observe(end.toolCalls);
    this.efficiency.observe(runEfficiency(end.rounds, end.toolResults, this.maxToolRounds));
  }

  conflict(outcome: 'replayed' | 'failed' | 'lease_lost'): void {
    this.conflicts.inc({ outcome });
  }
}
