import { Registry } from 'prom-client';
import { PrometheusSamples } from '../../../test/support/prometheus-samples';
import { AgentRunMetrics } from './agent-run.metrics';

describe(AgentRunMetrics.name, () => {
  it('counts runs by stop reason, and measures rounds, tool calls and efficiency of answers only', async () => {
    const registry = new Registry();
    const metrics = new AgentRunMetrics(registry, 10);
    metrics.runEnded({ kind: 'chat', stopReason: 'answer', rounds: 0, toolCalls: 0, toolResults: 0 });
    metrics.runEnded({ kind: 'chat', stopReason: 'no_progress', rounds: 3, toolCalls: 4, toolResults: 3 });
    metrics.runEnded({ kind: 'resume', stopReason: 'interrupt', rounds: 1, toolCalls: 2, toolResults: 1 });
    metrics.runEnded({ kind: 'chat', stopReason: 'error', rounds: 0, toolCalls: 0, toolResults: 0 });
    metrics.conflict('replayed');
    metrics.conflict('replayed');
    metrics.conflict('lease_lost');
    const samples = new PrometheusSamples(await registry.metrics());

    expect(samples.sum('graph_ai_agent_runs_total', { kind: 'chat' })).toBe(3);
    expect(samples.sum('graph_ai_agent_runs_total', { kind: 'resume', stop_reason: 'interrupt' })).toBe(1);
    expect(samples.sum('graph_ai_agent_runs_total', { stop_reason: 'error' })).toBe(1);
    // Two answers: a direct one (100 %) and 3 rounds with 3 results of 10 (85 %).
    expect(samples.sum('graph_ai_agent_answer_rounds_count')).toBe(2);
    expect(samples.sum('graph_ai_agent_answer_rounds_sum')).toBe(3);
    expect(samples.sum('graph_ai_agent_answer_tool_calls_sum')).toBe(4);
    expect(samples.sum('graph_ai_agent_answer_efficiency_percent_sum')).toBe(185);
    expect(samples.sum('graph_ai_agent_answer_efficiency_percent_bucket', { le: '90' })).toBe(1);
    expect(samples.sum('graph_ai_thread_commit_conflicts_total', { outcome: 'replayed' })).toBe(2);
    expect(samples.sum('graph_ai_thread_commit_conflicts_total', { outcome: 'lease_lost' })).toBe(1);
  });
});
