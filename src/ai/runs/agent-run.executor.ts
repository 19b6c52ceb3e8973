import type { OperationService } from '../../changes/operation.service';
import type { AppConfig } from '../../config/app-config';
import type { GraphRAGContext } from '../../conversation/graph-rag-context';
import type { LlmMessage, LlmToolDefinition } from '../../conversation/llm-message';
import type { ThreadEvent } from '../../conversation/thread-event';
import type { Graph } from '../../graph/graph.types';
import type { MutableGraphDataSource } from '../../graph/mutable-graph-data-source';
import type { ActingIdentity } from '../../policy/acting-identity';
import type { LlmProvider } from '../../providers/llm-provider';
import type { GraphRagRetriever } from '../../rag/graph-rag.retriever';
import type { ThreadRecord } from '../../threads/thread.types';
import { RunActions } from '../actions/run-actions';
import type { AgentResult, RunRecords } from '../agent/agent-result';
import type { AgentRunEvents, AgentRunOutcome, AgentRunRequest, ContextShrinker, RunBudget } from '../agent/agent-run';
import type { AgentLoop } from '../agent/agent.loop';
import type { UsageAccumulator } from '../agent/usage.accumulator';
import type { RunAuthority } from '../authority/run-authority';
import { AgentToolbox } from '../tools/agent.toolbox';
import { ReadToolExecutor } from '../tools/read/read-tool.executor';
import { ThreadRoundWriter } from './thread-round.writer';
import type { RunOutcome, ThreadRun } from './thread-runner';

/** Everything one run of the loop works with, besides what every run shares. */
export interface AgentRunPlan {
  acting: ActingIdentity;
  /** Resolved when the run started (the workspace's provider configuration, or the environment's). */
  provider: LlmProvider;
  budget?: RunBudget;
  thread: ThreadRecord;
  dataSource: MutableGraphDataSource;
  graph: Graph | null;
  messages: LlmMessage[];
  sink: AgentRunEvents;
  run: ThreadRun;
  agentRunId: string;
  retrievedContext?: GraphRAGContext;
  continuation?: AgentRunRequest['continuation'];
  shrinker?: ContextShrinker;
  authority: RunAuthority;
  actions: RunActions;
}

/** What a run's actions are made for: its graph and thread, who acts, and whether anyone attends it. */
export interface RunActionsPlan {
  dataSource: MutableGraphDataSource;
  thread: ThreadRecord;
  graph: Graph | null;
  acting: ActingIdentity;
  /** Node types a `create` block of the question named (their inferred schema checks created nodes). */
  createTypes?: readonly string[];
}

/**
 * The agent-run executor every use case shares: runs the loop on a
 * thread whose lease is held, with the run's tools (AgentToolbox under its RunAuthority), its actions (RunActions
 * through THE OperationService) and its commit path (ThreadRoundWriter), and turns the loop's outcome into the answer.
 */
export class AgentRunExecutor {
  constructor(
    private readonly loop: AgentLoop,
    private readonly operations: OperationService,
    private readonly retriever: GraphRagRetriever,
    private readonly config: AppConfig,
  ) {}

  /** The actions of a run on a graph: proposals checked, previewed and applied as operations. */
  actionsFor(plan: RunActionsPlan): RunActions {
    const { dataSource, thread, graph, acting, createTypes } = plan;
    return new RunActions({
      createTypes,
      operations: this.operations,
      dataSource,
      threadId: thread.threadId,
      graphKey: thread.graphKey,
      graph,
      acting,
      mode: this.config.agent.hitlApply,
      locale: this.config.locale,
      retrievalCache: this.retriever,
    });
  }

  /** The tool definitions a run offers the model: what its first request carries besides its messages. */
  offeredTools(
    plan: Pick<AgentRunPlan, 'provider' | 'authority' | 'dataSource' | 'thread'>,
  ): readonly LlmToolDefinition[] {
    return this.toolbox(plan).definitions;
  }

  execute(plan: AgentRunPlan): Promise<AgentRunOutcome> {
    const { thread, run, authority, actions, acting } = plan;
    const tools = this.toolbox(plan);
    return this.loop.run({
      messages: plan.messages,
      tools,
      events: plan.sink,
      signal: run.signal,
      usage: run.usage,
      agentRunId: plan.agentRunId,
      threadId: thread.threadId,
      workspace: thread.workspace,
      rounds: new ThreadRoundWriter(run, thread, { authority, acting, actions }),
      proposals: actions,
      shrinker: plan.shrinker,
      provider: plan.provider,
      budget: plan.budget,
      retrievedContext: plan.retrievedContext,
      pacing: run,
      continuation: plan.continuation,
    });
  }

  private toolbox(plan: Pick<AgentRunPlan, 'provider' | 'authority' | 'dataSource' | 'thread'>): AgentToolbox {
    const locale = this.config.locale;
    return new AgentToolbox({
      authority: plan.authority,
      readTools: new ReadToolExecutor(plan.dataSource, plan.thread.graphKey, {}, locale),
      toolsSupported: !plan.provider.offline,
      locale,
    });
  }

  /** The answer and how the run went. `earlier`: events the request wrote before the loop (DATA_ADDED, a recovery). */
  outcome(
    threadId: string,
    outcome: AgentRunOutcome,
    usage: UsageAccumulator,
    earlier: ThreadEvent[] = [],
  ): RunOutcome {
    const events = [...earlier, ...outcome.events];
    const records: RunRecords = {
      ...(events.length > 0 ? { events } : {}),
      ...(outcome.actions.length > 0 ? { actions: outcome.actions } : {}),
    };
    const base = { threadId, message: outcome.text, toolCalls: outcome.toolCalls, usage: usage.report(), ...records };
    const result: AgentResult =
      outcome.type === 'interrupt'
        ? { ...base, type: 'interrupt', interrupt: outcome.interrupt }
        : { ...base, type: 'message', ...(outcome.aborted ? { aborted: true as const } : {}) };
    return { result, stats: outcome.stats };
  }
}
