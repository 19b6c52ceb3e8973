import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { canEdit, Principal } from '../../auth/principal';
import type { AppConfig } from '../../config/app-config';
import type { ActionConversionResult } from '../../conversation/action-conversion-result';
import type { Interrupt } from '../../conversation/interrupt';
import type { LlmAssistantMessage, LlmToolCall, LlmToolMessage } from '../../conversation/llm-message';
import type { ChangedDocument, ProposalPreview } from '../../conversation/proposal-preview';
import type { ProposedAction } from '../../conversation/proposed-action';
import { describeItem } from '../../conversation/proposal-description';
import type { ThreadEvent } from '../../conversation/thread-event';
import { AppError } from '../../errors/app-error';
import type { GraphDataSourceFactory } from '../../graph/graph-data-source.factory';
import type { Graph } from '../../graph/graph.types';
import type { MutableGraphDataSource } from '../../graph/mutable-graph-data-source';
import type { ActionPolicyService } from '../../policy/action-policy.service';
import { ACTION_KINDS, ActionKind, EffectiveLevels, PolicyLevel } from '../../policy/action-policy';
import type { TokenTracker } from '../../providers/token.tracker';
import { deriveThreadTitle } from '../../threads/thread-title';
import { generateMessageId, generateSortableId } from '../../threads/sortable-id.generator';
import type { ThreadService } from '../../threads/thread.service';
import type { ThreadRecord } from '../../threads/thread.types';
import { ProposalReferenceValidator } from '../actions/proposal-reference.validator';
import type { ActionApplication } from '../actions/checked-action';
import type { AgentEventSink } from '../agent/agent-event.sink';
import type { AgentResult, ToolCallSummary } from '../agent/agent-result';
import { autonomousResultContent, toolErrorContent } from '../agent/tool-result.message';
import type { ActingIdentity } from '../authority/acting-identity';
import { kindsOf, RunAuthority } from '../authority/run-authority';
import type { AgentRunExecutor } from '../runs/agent-run.executor';
import { ThreadRoundWriter } from '../runs/thread-round.writer';
import type { RunOutcome, RunSession, ThreadRunner } from '../runs/thread-runner';
import { AgentToolbox } from '../tools/agent.toolbox';
import { isWriteTool, WriteToolName } from '../tools/write-tool-name';
import { parseWriteToolCall } from '../tools/write-tool.parser';

/** A change proposed from outside the service's own agent (an MCP client's `propose_*` call). */
export interface ProposalInput {
  graphKey: string;
  /** A write tool of the agent (`propose_create_node`, …, `propose_batch`). */
  toolName: string;
  /** Its arguments as the caller's model wrote them (a JSON object's text), without the graph key. */
  rawArguments: string;
  /** Who sent it, in the caller's words (an MCP client's name and version): written in the proposal's thread. */
  client: string;
}

/** The question asked before an `ask_first` change: which kinds it is asked for, and the change in words. */
export interface ConsentRequest {
  kinds: ActionKind[];
  /** One line per change the proposal makes (from its preview), then its reason. */
  description: string;
}

/**
 * How the caller asks its user before an `ask_first` change (MCP: elicitation). `available` false: it cannot ask, and
 * such a change is refused before anything is stored.
 */
export interface ProposalConsent {
  readonly available: boolean;
  /** True only for an explicit yes; a decline, a cancel or a failure to ask are all no. */
  ask(request: ConsentRequest): Promise<boolean>;
}

/** What became of a proposal. */
export type ProposalOutcome =
  | {
      status: 'applied';
      threadId: string;
      toolCallId: string;
      operationId: string;
      appliedBy: 'server' | 'client';
      via: 'autonomous' | 'ask_first';
      changes: ActionConversionResult;
    }
  | { status: 'stale'; threadId: string; toolCallId: string; operationId: string; changed: ChangedDocument[] }
  | { status: 'failed'; threadId: string; toolCallId: string; operationId: string; reason: string }
  | { status: 'pending_approval'; threadId: string; toolCallId: string; preview: ProposalPreview }
  | { status: 'declined'; threadId: string; toolCallId: string }
  | { status: 'refused'; reason: 'invalid' | 'forbidden' | 'ask_first'; message: string };

export interface ProposeChangeDependencies {
  config: AppConfig;
  graphs: GraphDataSourceFactory;
  threads: ThreadService;
  policies: ActionPolicyService;
  tokenTracker: TokenTracker;
  runner: ThreadRunner;
  executor: AgentRunExecutor;
}

/** Nothing listens to a proposal's run: its outcome is the returned value. */
const NO_EVENTS: AgentEventSink = {
  thread: () => undefined,
  token: () => undefined,
  toolStart: () => undefined,
  toolResult: () => undefined,
  event: () => undefined,
  apply: () => undefined,
  complete: () => undefined,
};

/** A proposal is checked by the write tools' own parser and policy; it never reads. */
const NO_READS = { execute: () => Promise.resolve(toolErrorContent('no read tool here')) };

/**
 * A change proposed by a caller whose model is not the service's (the MCP server's `propose_*` tools), under the
 * caller's action policy exactly as a proposal of a chat: the write tools' strict parser and the run authority decide
 * (AgentToolbox), the references are checked against the graph, and the change goes through THE OperationService
 * (RunActions). A `forbidden` kind is refused; an `autonomous` one is applied and recorded; a `validation_required`
 * one is stored as the pending interrupt of a thread of its own (`origin: "mcp"`), in the approval queue, where
 * approving it through ResumeInterrupt applies it once and runs no model; an `ask_first` one is asked to the caller's
 * user (ProposalConsent) and applied after a yes. With HITL_APPLY=client nothing is applied here (no editor of the
 * caller's applies it): every change waits in the queue, where the approver's editor applies it.
 *
 * Every valid proposal is a thread of the proposer (type chat, one per proposal: a thread holds one pending interrupt,
 * and a client may propose again before anyone decides): its question names the client and the tool, then the call,
 * its result or its pending interrupt, and the ACTIONS_EXECUTED event of what was applied. Throws budget_exceeded
 * (the service's budgets are spent), not_found (no such graph in the workspace), bad_request (not a write tool).
 */
export class ProposeChange {
  constructor(private readonly deps: ProposeChangeDependencies) {}

  async execute(
    principal: Principal,
    input: ProposalInput,
    consent: ProposalConsent,
    signal: AbortSignal,
  ): Promise<ProposalOutcome> {
    const { config, graphs } = this.deps;
    this.deps.tokenTracker.assertWithinBudget();
    if (!isWriteTool(input.toolName)) throw AppError.badRequest(`${input.toolName} is not a write tool`);
    const dataSource = graphs.forWorkspace(principal.workspace);
    const graph = await dataSource.getGraph(input.graphKey);
    if (!graph) throw AppError.notFound(`Graph "${input.graphKey}" not found`);
    if (!canEdit(principal))
      return { status: 'refused', reason: 'forbidden', message: 'Viewers cannot propose changes to a graph.' };
    const authority = await this.authorityFor(principal);
    const toolbox = new AgentToolbox({ authority, readTools: NO_READS, locale: config.locale });
    const call: LlmToolCall = {
      id: generateSortableId('call_mcp_'),
      type: 'function',
      function: { name: input.toolName, arguments: input.rawArguments },
    };
    const route = toolbox.route(call);
    if (route.kind === 'error' && route.refusedBy !== 'ask_first')
      return { status: 'refused', reason: route.refusedBy ?? 'invalid', message: route.message };
    if (route.kind !== 'error' && route.kind !== 'propose' && route.kind !== 'apply')
      throw AppError.badRequest(`${input.toolName} is not a write tool`);
    const action = route.kind === 'error' ? parsedAction(call) : route.action;
    const askFirst = route.kind === 'error';
    if (askFirst && !consent.available)
      return { status: 'refused', reason: 'ask_first', message: askFirstUnavailable(action, authority) };
    const checked = await new ProposalReferenceValidator(dataSource, input.graphKey, config.locale).validate(action);
    if (!checked.ok) return { status: 'refused', reason: 'invalid', message: checked.message };

    const session = await this.deps.runner.begin('proposal', { principal, sink: NO_EVENTS, signal });
    const agentRunId = randomUUID();
    let thread: ThreadRecord;
    try {
      const created = await this.deps.threads.createForRun(
        principal,
        input.graphKey,
        deriveThreadTitle(`MCP: ${checked.action.reason}`),
        { operationId: `${agentRunId}:input`, append: [questionOf(input)] },
      );
      thread = created.thread;
      session.adopt(thread, created.lease);
    } catch (error) {
      return session.abandon(error);
    }
    let settled: Settled;
    try {
      // No setup is left: the next run may start its own while this one waits for the user or applies.
      await session.handOver();
      settled = await this.settle({
        session,
        agentRunId,
        thread,
        graph,
        dataSource,
        acting: { principal },
        authority,
        toolbox,
        call,
        action: checked.action,
        askFirst,
        consent,
      });
      await session.finish(settled.run);
    } catch (error) {
      return session.fail(error);
    }
    return settled.outcome;
  }

  /**
   * What the caller may propose and what becomes of it: its action policy, where nothing is applied without a human
   * when HITL_APPLY=client. The tools an MCP client is offered are described from it.
   */
  async authorityFor(principal: Principal): Promise<RunAuthority> {
    const { config, policies } = this.deps;
    const levels = await policies.levelsFor(principal);
    return new RunAuthority(
      canEdit(principal),
      config.agent.hitlApply === 'client' ? withoutApplying(levels) : levels,
      [],
      config.locale,
    );
  }

  /** The checked proposal on its thread: asked first (ask_first), then stored pending, applied, or declined. */
  private async settle(state: SettleState): Promise<Settled> {
    const { session, thread, graph, authority, toolbox, call, action } = state;
    const { config } = this.deps;
    const started = performance.now();
    const actions = this.deps.executor.actionsFor({
      dataSource: state.dataSource,
      thread,
      graph,
      acting: state.acting,
    });
    const writer = new ThreadRoundWriter(session, thread, { authority, acting: state.acting, actions });
    const operationId = `${state.agentRunId}:0`;
    const { threadId } = thread;
    const toolCallId = call.id;
    const assistant: LlmAssistantMessage = { role: 'assistant', content: null, tool_calls: [call], threadId };
    const preview = await actions.preview(action, toolCallId);
    let route = toolbox.route(call);
    if (state.askFirst) {
      const kinds = askedKinds(action, authority);
      const yes = await state.consent.ask({ kinds, description: describe(preview, action, graph?.sheetsList) });
      if (yes) {
        // The yes is for this proposal: the authority lives for this call only.
        for (const kind of kinds) authority.grant({ kind }, toolCallId);
        authority.beginReply();
        route = toolbox.route(call);
      }
      if (route.kind === 'error') {
        await writer.commit({
          operationId,
          messages: [assistant, toolMessage(call, toolErrorContent(DECLINED), false, started, threadId)],
        });
        return {
          outcome: { status: 'declined', threadId, toolCallId },
          run: runOutcome(threadId, summaryOf(call, 'error'), session, { stopReason: 'answer' }),
        };
      }
    }
    if (route.kind === 'propose') {
      const interrupt = { kind: 'approval' as const, toolCallId, proposedAction: action, preview };
      await writer.commit({
        operationId,
        messages: [assistant],
        pendingInterrupt: {
          interrupt,
          toolName: call.function.name,
          remainingToolCalls: [],
          createdTime: Date.now(),
          origin: 'mcp',
        },
      });
      return {
        outcome: { status: 'pending_approval', threadId, toolCallId, preview },
        run: runOutcome(threadId, summaryOf(call, 'proposed'), session, { stopReason: 'interrupt', interrupt }),
      };
    }
    if (route.kind !== 'apply') throw new AppError('internal', `A proposal was routed as ${route.kind}`);
    const application = await actions.applyAutonomous({ toolCallId, proposedAction: action, preview }, route.via);
    const applied = application.status === 'applied';
    const events = actions.takeEvents();
    await writer.commit({
      operationId,
      messages: [
        assistant,
        toolMessage(call, autonomousResultContent(application, config.locale), applied, started, threadId),
      ],
      ...(events.length > 0 ? { events } : {}),
    });
    return {
      outcome: outcomeOf(application, threadId, toolCallId, route.via, preview),
      run: runOutcome(threadId, summaryOf(call, applied ? 'applied' : 'error'), session, {
        stopReason: 'answer',
        events,
        toolResults: applied ? 1 : 0,
      }),
    };
  }
}

interface SettleState {
  session: RunSession;
  agentRunId: string;
  thread: ThreadRecord;
  graph: Graph;
  dataSource: MutableGraphDataSource;
  acting: ActingIdentity;
  authority: RunAuthority;
  toolbox: AgentToolbox;
  call: LlmToolCall;
  action: ProposedAction;
  askFirst: boolean;
  consent: ProposalConsent;
}

interface Settled {
  outcome: ProposalOutcome;
  run: RunOutcome;
}

/** What the model of a chat would be told when the user says no; stored as the call's result. */
const DECLINED = 'The user declined this change: nothing was changed.';

/**
 * The levels when nothing can be applied here for the caller (HITL_APPLY=client: the caller has no editor that
 * applies changes): everything allowed waits for a human, whose editor applies it on approval.
 */
function withoutApplying(levels: EffectiveLevels): EffectiveLevels {
  const kept = {} as Record<ActionKind, PolicyLevel>;
  for (const kind of ACTION_KINDS) kept[kind] = levels[kind] === 'forbidden' ? 'forbidden' : 'validation_required';
  return Object.freeze(kept);
}

/** The action of a call the toolbox parsed already (it refused it only for the policy's ask_first). */
function parsedAction(call: LlmToolCall): ProposedAction {
  const parsed = parseWriteToolCall(call.function.name as WriteToolName, JSON.parse(call.function.arguments) as object);
  if (!parsed.ok) throw new AppError('internal', 'A call the toolbox accepted no longer parses');
  return parsed.action;
}

/** The kinds of an action that the policy asks about first. */
function askedKinds(action: ProposedAction, authority: RunAuthority): ActionKind[] {
  return [...kindsOf(action)].filter((kind) => authority.levelOfKind(kind) === 'ask_first');
}

function askFirstUnavailable(action: ProposedAction, authority: RunAuthority): string {
  return (
    `This workspace asks the user before each ${askedKinds(action, authority).join(', ')}, and this client cannot ` +
    "ask them (it does not support MCP elicitation). Make this change from the assistant's chat, or use a client that " +
    'supports elicitation.'
  );
}

function describe(preview: ProposalPreview, action: ProposedAction, sheets?: Record<string, string>): string {
  return `${describeItem(preview, sheets)}.\nReason: ${action.reason}`;
}

/** The thread's question: who proposed what, in the user's own thread (no system line carries the client's words). */
function questionOf(input: ProposalInput) {
  const now = Date.now();
  return {
    id: generateMessageId(now),
    role: 'user' as const,
    content: `Change proposed over MCP by ${input.client}: ${input.toolName}`,
    createdTime: now,
  };
}

function toolMessage(
  call: LlmToolCall,
  content: string,
  success: boolean,
  started: number,
  threadId: string,
): LlmToolMessage {
  return {
    role: 'tool',
    tool_call_id: call.id,
    name: call.function.name,
    content,
    success,
    durationMs: Math.round(performance.now() - started),
    threadId,
  };
}

function summaryOf(call: LlmToolCall, status: ToolCallSummary['status']): ToolCallSummary {
  return { id: call.id, name: call.function.name, arguments: call.function.arguments, status };
}

/** The run's answer as every run gives it (its log line, the metrics): no text, one tool call, no upstream call. */
function runOutcome(
  threadId: string,
  summary: ToolCallSummary,
  session: RunSession,
  ending: {
    stopReason: 'answer' | 'interrupt';
    interrupt?: Interrupt;
    events?: ThreadEvent[];
    toolResults?: number;
  },
): RunOutcome {
  const base = {
    threadId,
    message: '',
    toolCalls: [summary],
    usage: session.usage.report(),
    ...(ending.events && ending.events.length > 0 ? { events: ending.events } : {}),
  };
  const result: AgentResult = ending.interrupt
    ? { ...base, type: 'interrupt', interrupt: ending.interrupt }
    : { ...base, type: 'message' };
  return { result, stats: { stopReason: ending.stopReason, rounds: 0, toolResults: ending.toolResults ?? 0 } };
}

function outcomeOf(
  application: ActionApplication,
  threadId: string,
  toolCallId: string,
  via: 'autonomous' | 'ask_first',
  preview: ProposalPreview,
): ProposalOutcome {
  const { operationId } = application;
  switch (application.status) {
    case 'applied': {
      const { basis: _basis, items: _items, ...changes } = preview;
      return { status: 'applied', threadId, toolCallId, operationId, appliedBy: application.appliedBy, via, changes };
    }
    case 'stale':
      return { status: 'stale', threadId, toolCallId, operationId, changed: application.changed };
    case 'failed':
      return { status: 'failed', threadId, toolCallId, operationId, reason: application.reason };
  }
}
