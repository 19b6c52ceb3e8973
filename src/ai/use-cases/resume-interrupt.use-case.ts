import { performance } from 'node:perf_hooks';
import { ATTR_GEN_AI_CONVERSATION_ID } from '@opentelemetry/semantic-conventions/incubating';
import { GenAiTracer } from '../../observability/tracing/gen-ai.tracer';
import { resultAttributes, RUN_KIND } from '../runs/run-span.attributes';
import { randomUUID } from 'node:crypto';
import { canEdit, Principal } from '../../auth/principal';
import type { AppConfig } from '../../config/app-config';
import type { LlmToolMessage } from '../../conversation/llm-message';
import { AppError } from '../../errors/app-error';
import type { GraphDataSourceFactory } from '../../graph/graph-data-source.factory';
import type { ActionPolicyService } from '../../policy/action-policy.service';
import type { LlmProviderResolver } from '../../providers/llm-provider.resolver';
import type { TokenTracker } from '../../providers/token.tracker';
import type { ThreadService } from '../../threads/thread.service';
import type { PendingInterrupt, ThreadRecord } from '../../threads/thread.types';
import type { AgentEventSink } from '../agent/agent-event.sink';
import type { AgentResult } from '../agent/agent-result';
import { RunAuthority } from '../authority/run-authority';
import type { ResumeInput } from '../chat-input';
import { checkText } from '../chat-input.checks';
import type { ContextAssembler } from '../context/context.assembler';
import type { HitlObserver } from '../hitl.observer';
import type { InterruptDecision, PendingInterruptSettler } from '../interrupts/pending-interrupt.settler';
import type { PromptLevelsCache } from '../prompts/prompt-levels.cache';
import type { PromptLevels } from '../prompts/system-prompt.builder';
import { SmallerContextBuilder, withoutPendingResults } from '../recovery/smaller-context.builder';
import type { AgentRunExecutor } from '../runs/agent-run.executor';
import type { AutomationRuns } from '../runs/automation-runs.port';
import type { RunOutcome, ThreadRun, ThreadRunner } from '../runs/thread-runner';

export interface ResumeInterruptDependencies {
  config: AppConfig;
  graphs: GraphDataSourceFactory;
  threads: ThreadService;
  policies: ActionPolicyService;
  tokenTracker: TokenTracker;
  providers: LlmProviderResolver;
  promptLevels: PromptLevelsCache;
  context: ContextAssembler;
  smallerContext: SmallerContextBuilder;
  settler: PendingInterruptSettler;
  runner: ThreadRunner;
  executor: AgentRunExecutor;
  automations?: AutomationRuns;
  hitl?: HitlObserver;
  /** The run's invoke_agent span (none by default). */
  tracer?: GenAiTracer;
}

/**
 * Resuming an interrupt (POST /api/ai/resume, `ai:resume`): the human's answer to the thread's pending proposal or
 * question, then the rest of the model's reply and the conversation, as the run that stopped (same acting identity,
 * action policy and yeses, and for an automation's thread the automation's budgets and provider configuration).
 * Throws not_found (thread unknown or not the principal's), thread_busy (a run, e.g. a racing resume, holds the
 * thread), conflict (no pending interrupt: a racing resume already answered it), forbidden (a viewer answering a
 * proposal: the owner answers a question whatever their role), bad_request (an answer or `approvedItems` the
 * interrupt does not accept: nothing changes, it stays pending), plus the errors of the continued run.
 *
 * A proposal's decision is one operation: applied once, recorded in the graph write's
 * transaction, so a retry after a crash between the apply and the commit below answers what the first attempt did,
 * and a stale proposal applies nothing. The decision is committed with the rest of the model's reply under the lease.
 */
export class ResumeInterrupt {
  constructor(private readonly deps: ResumeInterruptDependencies) {}

  execute(principal: Principal, input: ResumeInput, sink: AgentEventSink, signal: AbortSignal): Promise<AgentResult> {
    const tracer = this.deps.tracer ?? GenAiTracer.disabled;
    return tracer.invokeAgent(
      {
        [RUN_KIND]: 'resume',
        'app.resume.approved': input.approved,
        [ATTR_GEN_AI_CONVERSATION_ID]: input.threadId,
      },
      async (span) => {
        const result = await this.resumeTraced(principal, input, sink, signal);
        span.set(resultAttributes(result));
        return result;
      },
    );
  }

  private async resumeTraced(
    principal: Principal,
    input: ResumeInput,
    sink: AgentEventSink,
    signal: AbortSignal,
  ): Promise<AgentResult> {
    // The request names its thread: ai:thread comes first whatever follows (always, for ai:resume); an unknown and someone else's thread both get it, so it tells nothing.
    sink.thread(input.threadId);
    const { config } = this.deps;
    const decision: InterruptDecision = {
      approved: input.approved,
      ...(input.feedback !== undefined ? { feedback: checkText(config, input.feedback, 'feedback', false) } : {}),
      ...(input.answer !== undefined ? { answer: checkText(config, input.answer, 'answer', false) } : {}),
      ...(input.approvedItems !== undefined ? { approvedItems: [...new Set(input.approvedItems)] } : {}),
    };
    const session = await this.deps.runner.begin('resume', { principal, sink, signal });
    try {
      await session.leaseThread(await this.deps.threads.load(principal, input.threadId));
    } catch (error) {
      return session.abandon(error);
    }
    try {
      return await session.finish(
        await this.resume(principal, input.threadId, decision, sink, session, input.toolCallId),
      );
    } catch (error) {
      return session.fail(error);
    }
  }

  /** A no to sending a large prompt: the question stays stored, unanswered, and nothing goes upstream. */
  private async declineSend(thread: ThreadRecord, pending: PendingInterrupt, run: ThreadRun): Promise<RunOutcome> {
    await run.commit(thread, { operationId: `${randomUUID()}:send_declined`, append: [], pendingInterrupt: null });
    this.deps.hitl?.interrupt('declined');
    const estimate = pending.interrupt.kind === 'question' ? pending.interrupt.estimate : undefined;
    return {
      result: {
        threadId: thread.threadId,
        type: 'message',
        message: '',
        toolCalls: [],
        usage: run.usage.report(),
        ...(estimate ? { notSent: { reason: 'declined' as const, estimate } } : {}),
      },
      stats: { stopReason: 'not_sent', rounds: 0, toolResults: 0 },
    };
  }

  private async resume(
    principal: Principal,
    threadId: string,
    decision: InterruptDecision,
    sink: AgentEventSink,
    run: ThreadRun,
    expectedCall: string | undefined,
  ): Promise<RunOutcome> {
    const { config, threads, settler, executor, promptLevels, context, smallerContext } = this.deps;
    const thread = await threads.load(principal, threadId);
    const startedAt = performance.now();
    const pending = thread.pendingInterrupt;
    if (!pending) throw AppError.conflict('No pending interrupt on this thread', { threadId: thread.threadId });
    if (expectedCall !== undefined && pending.interrupt.toolCallId !== expectedCall)
      throw AppError.conflict('The pending interrupt of this thread is another one', {
        threadId: thread.threadId,
        toolCallId: pending.interrupt.toolCallId,
      });
    if (pending.interrupt.kind === 'approval' && !canEdit(principal)) {
      throw AppError.forbidden('Only editors and admins can approve or reject proposals');
    }
    settler.check(pending, decision);
    if (pending.confirmsSend && !decision.approved) return this.declineSend(thread, pending, run);
    this.deps.tokenTracker.assertWithinBudget();
    const settings = thread.type === 'automation' ? await this.deps.automations?.settingsOf(thread) : null;
    settings?.budget?.assertWithin(run.usage.totals());
    const provider = await this.deps.providers.forRun(principal.workspace, settings?.providerConfigId);
    // The run goes on as who it acted as, under the policy it stopped with (a pending interrupt made under it stays
    // resolvable); a thread from before acting identities were kept acts as the one resuming it.
    const acting = pending.acting ?? { principal };
    const dataSource = this.deps.graphs.forWorkspace(principal.workspace);
    const graph = await dataSource.getGraph(thread.graphKey);
    const levels: PromptLevels | null = graph
      ? await promptLevels.levelsFor(dataSource, graph, acting.principal.role, config.locale)
      : null;
    const authority = pending.policy
      ? RunAuthority.restore(canEdit(acting.principal), pending.policy, config.locale)
      : new RunAuthority(
          canEdit(acting.principal),
          await this.deps.policies.levelsFor(acting.principal),
          [],
          config.locale,
        );
    const actions = executor.actionsFor({ dataSource, thread, graph, acting });
    if (pending.confirmsSend) {
      // Yes to sending a large prompt: the question, its context and DATA_ADDED event are stored; the loop starts.
      this.deps.hitl?.interrupt('answered');
      const agentRunId = randomUUID();
      const cleared = (
        await run.commit(thread, { operationId: `${agentRunId}:send_confirmed`, append: [], pendingInterrupt: null })
      ).record;
      const { messages } = await context.assemble({ levels, thread: cleared, signal: run.signal });
      const question = cleared.messages.findLast((message) => message.role === 'user')?.content ?? '';
      await run.handOver();
      const outcome = await executor.execute({
        acting,
        provider,
        budget: settings?.budget,
        thread: cleared,
        dataSource,
        graph,
        messages,
        sink,
        run,
        agentRunId,
        authority,
        actions,
        shrinker: smallerContext.shrinkerFor({ dataSource, thread: cleared, question, levels }),
      });
      if (outcome.type === 'interrupt') this.deps.hitl?.interrupt('proposed');
      return executor.outcome(thread.threadId, outcome, run.usage);
    }
    const settled = await settler.settle(pending, decision, actions, principal);
    if (settled.allows) authority.grant(settled.allows, pending.interrupt.toolCallId);
    const toolCallId = pending.interrupt.toolCallId;
    sink.toolStart(toolCallId, pending.toolName);
    sink.toolResult(toolCallId, settled.content);
    const decided: LlmToolMessage = {
      role: 'tool',
      tool_call_id: toolCallId,
      name: pending.toolName,
      content: settled.content,
      success: settled.success,
      durationMs: Math.round(performance.now() - startedAt),
    };

    const { messages } = await context.assemble({ levels, thread, signal: run.signal });
    const history = withoutPendingResults(messages, pending);
    const question = thread.messages.findLast((message) => message.role === 'user')?.content ?? '';
    await run.handOver();
    const outcome = await executor.execute({
      acting,
      provider,
      budget: settings?.budget,
      thread,
      dataSource,
      graph,
      messages: history,
      sink,
      run,
      agentRunId: randomUUID(),
      continuation: {
        results: [decided],
        remainingToolCalls: pending.remainingToolCalls,
        firstCallIndex: callIndexAfter(thread, toolCallId),
        ...(pending.origin === 'mcp' ? { final: true } : {}),
      },
      authority,
      actions,
      shrinker: smallerContext.shrinkerFor({ dataSource, thread, question, levels }, pending),
    });
    if (outcome.type === 'interrupt') this.deps.hitl?.interrupt('proposed');
    const { result, stats } = executor.outcome(thread.threadId, outcome, run.usage);
    return { result: { ...result, ...(settled.resolution ? { resolution: settled.resolution } : {}) }, stats };
  }
}

/** The place, in its reply, of the call after the interrupting one: the per-reply cap goes on counting from there. */
function callIndexAfter(thread: ThreadRecord, toolCallId: string): number {
  const reply = thread.messages.findLast(
    (message) => message.role === 'assistant' && message.toolCalls?.some((call) => call.id === toolCallId),
  );
  return (reply?.toolCalls?.findIndex((call) => call.id === toolCallId) ?? -1) + 1;
}
