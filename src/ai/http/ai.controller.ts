import { Body, Controller, Delete, Get, Headers, HttpCode, Optional, Param, Post, Res } from '@nestjs/common';
import { GenAiTracer } from '../../observability/tracing/gen-ai.tracer';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { CurrentPrincipal } from '../../auth/current-principal.decorator';
import { Principal } from '../../auth/principal';
import { RateLimited } from '../../auth/rate-limited.decorator';
import { AppError } from '../../errors/app-error';
import { ThreadService } from '../../threads/thread.service';
import { ThreadSummary } from '../../threads/thread.types';
import { AgentEventSink } from '../agent/agent-event.sink';
import { AgentResult } from '../agent/agent-result';
import { chatInputOf, resumeInputOf } from '../chat-input';
import { ChatRequestDto } from '../dto/chat-request.dto';
import { ResumeRequestDto } from '../dto/resume-request.dto';
import { RestoreRequestDto, UndoRequestDto } from '../dto/revert-request.dto';
import { ThreadsRequestDto } from '../dto/threads-request.dto';
import { ActiveRunRegistry } from '../runs/active-run.registry';
import { ThreadChangeView } from '../thread-changes.view';
import { ThreadView } from '../thread.view';
import { AskQuestion } from '../use-cases/ask-question.use-case';
import { ResumeInterrupt } from '../use-cases/resume-interrupt.use-case';
import { RevertChanges, RevertResult } from '../use-cases/revert-changes.use-case';
import { ThreadQueries } from '../use-cases/thread-queries.use-case';
import {
  ABORTED_THREAD_MESSAGE_EXAMPLE,
  AUTONOMOUS_RESULT_EXAMPLE,
  CHANGES_EXAMPLE,
  ERROR_EXAMPLES,
  INTERRUPT_RESULT_EXAMPLE,
  MESSAGE_RESULT_EXAMPLE,
  QUESTION_RESULT_EXAMPLE,
  RESUMED_RESULT_EXAMPLE,
  REVERT_EXAMPLE,
  THREAD_EXAMPLE,
  THREADS_EXAMPLE,
} from './ai-api.examples';
import { CollectingSink } from './collecting.sink';

/** Owner of REST runs in the ActiveRunRegistry (sockets use their socket id). */
const HTTP_OWNER = 'http';

const errorResponse = (status: number, description: string, example: object) =>
  ApiResponse({ status, description, schema: { example } });
/** A response documented by several named examples. */
const examplesResponse = (
  status: number,
  description: string,
  examples: Record<string, { summary?: string; value: object }>,
) => ApiResponse({ status, description, content: { 'application/json': { examples } } });

/**
 * The agent over REST (docs/protocol.md §3, §9): the same use cases as the Socket.IO gateway, a run collected into
 * one AgentResult. A client that disconnects before the answer stops the run (the upstream request is cancelled, the
 * partial text is kept in the thread).
 */
@ApiTags('ai')
@ApiBearerAuth()
@Controller('ai')
export class AiController {
  constructor(
    private readonly askQuestion: AskQuestion,
    private readonly resumeInterrupt: ResumeInterrupt,
    private readonly threadQueries: ThreadQueries,
    private readonly revertChanges: RevertChanges,
    private readonly threads: ThreadService,
    private readonly runs: ActiveRunRegistry,
    @Optional() private readonly tracer: GenAiTracer = GenAiTracer.disabled,
  ) {}

  @Post('chat')
  @HttpCode(200)
  @RateLimited()
  @ApiOperation({
    summary: 'Ask the assistant about a graph',
    description:
      'Retrieves the relevant part of the graph, lets the model read it with tools and answers. Creates a thread when ' +
      "`threadId` is absent. What becomes of a change the model proposes follows the workspace's action policy (GET " +
      '/api/ai/policy): applied at once (tool call `status: "applied"`, an ACTIONS_EXECUTED event), or an `interrupt` to ' +
      'approve or reject with POST /api/ai/resume; the model may also ask a question (`interrupt.kind: "question"`), ' +
      'answered the same way. A new message on a thread with a pending interrupt settles it first (a proposal rejected, a ' +
      'question declined: "superseded by a new message"). `events` lists the thread events the request wrote (DATA_ADDED, ' +
      'ACTIONS_EXECUTED); `actions`, with HITL_APPLY=client, the changes applied without a human that your editor applies. ' +
      'One run per thread at a time, on any instance (409 thread_busy). For streaming, use Socket.IO namespace /ai.',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Any 1-255 character key. The same key from the same user within 24 h returns the first answer without a second ' +
      'LLM call (header `Idempotent-Replayed: true`); while the first request runs, a repeat gets 409 thread_busy.',
  })
  @ApiBody({
    type: ChatRequestDto,
    examples: {
      newThread: {
        summary: 'New conversation',
        value: { graphKey: 'nba-workflow', message: 'What does fetch-api do?' },
      },
      followUp: {
        summary: 'Follow-up with a pinned node',
        value: {
          graphKey: 'nba-workflow',
          message: 'Add a node that logs its errors.',
          threadId: THREAD_EXAMPLE.threadId,
          mentions: ['fetch-api'],
        },
      },
    },
  })
  @examplesResponse(
    200,
    'The answer (`type: "message"`), or a proposal or question waiting for the user (`type: "interrupt"`).',
    {
      message: { summary: 'Answer', value: MESSAGE_RESULT_EXAMPLE },
      autonomous: { summary: 'A change the policy applied at once', value: AUTONOMOUS_RESULT_EXAMPLE },
      interrupt: { summary: 'Proposal to approve', value: INTERRUPT_RESULT_EXAMPLE },
      question: { summary: 'Question to answer', value: QUESTION_RESULT_EXAMPLE },
    },
  )
  @errorResponse(
    400,
    'Invalid body (unknown field, empty message, more than 50 mentions…) or Idempotency-Key.',
    ERROR_EXAMPLES.badRequest,
  )
  @errorResponse(401, 'Missing, expired or invalid token.', ERROR_EXAMPLES.unauthorized)
  @errorResponse(
    404,
    'No such graph in your workspace, or the thread is not yours / not of this graph.',
    ERROR_EXAMPLES.notFound,
  )
  @errorResponse(
    409,
    'Another request runs on this thread (or with this Idempotency-Key), on any instance.',
    ERROR_EXAMPLES.threadBusy,
  )
  @errorResponse(
    402,
    'A usage limit is reached (AI_MAX_TOTAL_TOKENS, AI_MAX_COST_USD), or the provider account has no quota left.',
    ERROR_EXAMPLES.budgetExceeded,
  )
  @errorResponse(413, 'Message longer than MESSAGE_MAX_CHARS.', ERROR_EXAMPLES.payloadTooLarge)
  @errorResponse(
    502,
    'The LLM provider failed (rate_limit 429, server_error, auth_error, timeout 504, network…), after retries.',
    ERROR_EXAMPLES.upstream,
  )
  async chat(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ChatRequestDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AgentResult> {
    const input = chatInputOf(body);
    const run = () => this.collect(res, (sink, signal) => this.askQuestion.execute(principal, input, sink, signal));
    if (idempotencyKey === undefined) return run();

    const reservation = await this.threads.reserveIdempotencyKey(principal, idempotencyKey);
    if (reservation.state === 'completed') {
      res.setHeader('Idempotent-Replayed', 'true');
      return reservation.response as AgentResult;
    }
    if (reservation.state === 'in_progress') {
      throw new AppError('thread_busy', 'A request with this Idempotency-Key is still running');
    }
    let result: AgentResult;
    try {
      result = await run();
    } catch (failure) {
      await this.threads.releaseIdempotencyKey(principal, idempotencyKey);
      throw failure;
    }
    // A stopped run never answered its client: the key stays usable for a retry.
    if (result.type === 'message' && result.aborted)
      await this.threads.releaseIdempotencyKey(principal, idempotencyKey);
    else await this.threads.completeIdempotencyKey(principal, idempotencyKey, result);
    return result;
  }

  @Post('resume')
  @HttpCode(200)
  @RateLimited()
  @ApiOperation({
    summary: 'Approve or reject the pending proposal, or answer the pending question',
    description:
      'A proposal (editors and admins only): approved, the change is applied (HITL_APPLY=server) or handed back in ' +
      '`resolution.changes` for your editor to apply (HITL_APPLY=client), under `resolution.operationId`; a batch may be ' +
      'approved in part (`approvedItems`); a proposal whose nodes or edges changed since it was made applies nothing ' +
      '(`resolution.status: "stale"` with `changed`); rejected, the model is told, with your feedback. A retry after a ' +
      'failure answers what the first attempt did, never applying twice. ' +
      "A question (the thread's owner, whatever their role): a `choice` is answered with `approved: true` and `answer`, one " +
      'of its options exactly (else 400, and it stays pending), or declined with `approved: false`; a `confirm` question ' +
      'is answered by `approved` alone (yes / no). Then the model continues. Two racing resumes: exactly one is applied, ' +
      'the other gets 409.',
  })
  @ApiBody({
    type: ResumeRequestDto,
    examples: {
      approve: { summary: 'Approve', value: { threadId: THREAD_EXAMPLE.threadId, approved: true } },
      reject: {
        summary: 'Reject with feedback',
        value: { threadId: THREAD_EXAMPLE.threadId, approved: false, feedback: 'Put it on the data-processing sheet.' },
      },
      answer: {
        summary: 'Answer a choice question',
        value: { threadId: THREAD_EXAMPLE.threadId, approved: true, answer: '2024-25' },
      },
      confirm: {
        summary: 'Say yes to a confirm question',
        value: { threadId: THREAD_EXAMPLE.threadId, approved: true },
      },
      partly: {
        summary: 'Approve two items of a batch',
        value: { threadId: THREAD_EXAMPLE.threadId, approved: true, approvedItems: ['i1', 'i2'] },
      },
    },
  })
  @examplesResponse(
    200,
    'The continued conversation: an answer, or the next proposal. `resolution` says how the proposal was settled.',
    {
      message: { summary: 'Applied, then answered', value: RESUMED_RESULT_EXAMPLE },
      interrupt: { summary: 'Next proposal', value: INTERRUPT_RESULT_EXAMPLE },
    },
  )
  @examplesResponse(400, 'Invalid body, or an answer the pending question does not accept (it stays pending).', {
    invalidBody: { value: ERROR_EXAMPLES.badRequest },
    answerNotAnOption: { value: ERROR_EXAMPLES.answerNotAnOption },
  })
  @errorResponse(401, 'Missing, expired or invalid token.', ERROR_EXAMPLES.unauthorized)
  @errorResponse(
    403,
    'Viewers cannot answer proposals (they answer the questions of their own threads).',
    ERROR_EXAMPLES.forbidden,
  )
  @errorResponse(404, 'No such thread of yours.', ERROR_EXAMPLES.notFound)
  @examplesResponse(
    409,
    'A run holds the thread (thread_busy, retryable), or there is no pending proposal any more (conflict: a racing resume won).',
    {
      busy: { value: ERROR_EXAMPLES.threadBusy },
      noPendingInterrupt: { value: ERROR_EXAMPLES.noPendingInterrupt },
    },
  )
  @errorResponse(413, '`feedback` or `answer` longer than MESSAGE_MAX_CHARS.', {
    ...ERROR_EXAMPLES.payloadTooLarge,
    message: 'feedback is longer than 16000 characters',
  })
  @errorResponse(
    402,
    'A usage limit is reached, or the provider account has no quota left.',
    ERROR_EXAMPLES.budgetExceeded,
  )
  @errorResponse(502, 'The LLM provider failed while continuing.', ERROR_EXAMPLES.upstream)
  resume(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ResumeRequestDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AgentResult> {
    const input = resumeInputOf(body);
    return this.collect(res, (sink, signal) => this.resumeInterrupt.execute(principal, input, sink, signal));
  }

  @Post('threads')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Your threads of a graph',
    description: 'Most recently updated first. `messageCount` counts user, assistant and tool messages.',
  })
  @ApiBody({ type: ThreadsRequestDto, examples: { nba: { value: { graphKey: 'nba-workflow' } } } })
  @ApiResponse({
    status: 200,
    description: 'Thread summaries, newest first (empty for a graph without threads).',
    schema: { example: THREADS_EXAMPLE },
  })
  @errorResponse(400, 'Invalid body.', ERROR_EXAMPLES.badRequest)
  @errorResponse(401, 'Missing, expired or invalid token.', ERROR_EXAMPLES.unauthorized)
  threadsOf(@CurrentPrincipal() principal: Principal, @Body() body: ThreadsRequestDto): Promise<ThreadSummary[]> {
    return this.threadQueries.listThreads(principal, body.graphKey);
  }

  @Get('thread/:threadId')
  @ApiOperation({
    summary: 'One of your threads',
    description:
      'The conversation without the system prompt and the retrieved contexts, with its thread events in order (`role: "event"`: ' +
      'DATA_ADDED after each question, ACTIONS_EXECUTED after each applied series). A stopped generation appears as an assistant ' +
      `message with its partial text and \`aborted: true\`, e.g. ${JSON.stringify(ABORTED_THREAD_MESSAGE_EXAMPLE)}.`,
  })
  @ApiParam({ name: 'threadId', example: THREAD_EXAMPLE.threadId })
  @ApiResponse({
    status: 200,
    description: 'The thread, with the pending proposal (or null) and its usage totals.',
    schema: { example: THREAD_EXAMPLE },
  })
  @errorResponse(401, 'Missing, expired or invalid token.', ERROR_EXAMPLES.unauthorized)
  @errorResponse(404, "No such thread of yours (also for another user's thread).", ERROR_EXAMPLES.notFound)
  thread(@CurrentPrincipal() principal: Principal, @Param('threadId') threadId: string): Promise<ThreadView> {
    return this.threadQueries.getThread(principal, threadId);
  }

  @Get('thread/:threadId/changes')
  @ApiOperation({
    summary: 'The changes applied for a thread',
    description:
      'Every change applied (or sent to your editor) for the thread, oldest first: its operation, the message it belongs ' +
      'to, who applied it and how (`actor.via`: approval, autonomous, ask_first, automation, undo), the change set and ' +
      'its inverse (computed when it was applied), and the revert that reverted it. The owner reads it; an automation ' +
      "thread's, any editor or admin of its workspace.",
  })
  @ApiParam({ name: 'threadId', example: THREAD_EXAMPLE.threadId })
  @ApiResponse({ status: 200, description: 'Oldest first.', schema: { example: CHANGES_EXAMPLE } })
  @errorResponse(401, 'Missing, expired or invalid token.', ERROR_EXAMPLES.unauthorized)
  @errorResponse(404, 'No such thread of yours.', ERROR_EXAMPLES.notFound)
  changes(@CurrentPrincipal() principal: Principal, @Param('threadId') threadId: string): Promise<ThreadChangeView[]> {
    return this.threadQueries.listChanges(principal, threadId);
  }

  @Post('thread/:threadId/undo')
  @HttpCode(200)
  @RateLimited()
  @ApiOperation({
    summary: 'Undo the changes of a message',
    description:
      'Reverts what the assistant applied for a message (default: the latest assistant message that applied anything) as ' +
      'one operation of its own (`via: "undo"`), which can itself be undone (undo the message of its ACTIONS_REVERTED ' +
      'event). A node or edge someone changed since is not reverted: it is listed in `refused` (`changed_since`), the ' +
      'rest is. With HITL_APPLY=client the inverse is in `apply` (and `ai:apply` on a socket) for your editor. Editors ' +
      'and admins only.',
  })
  @ApiParam({ name: 'threadId', example: THREAD_EXAMPLE.threadId })
  @ApiBody({ type: UndoRequestDto, examples: { latest: { value: {} } } })
  @ApiResponse({ status: 200, description: 'What was reverted and refused.', schema: { example: REVERT_EXAMPLE } })
  @errorResponse(400, 'Invalid body.', ERROR_EXAMPLES.badRequest)
  @errorResponse(401, 'Missing, expired or invalid token.', ERROR_EXAMPLES.unauthorized)
  @errorResponse(403, 'Viewers cannot undo.', ERROR_EXAMPLES.forbidden)
  @errorResponse(404, 'No such thread of yours, or no such message in it.', ERROR_EXAMPLES.notFound)
  @errorResponse(
    409,
    'A run holds the thread (thread_busy), or nothing of the assistant is in effect there (conflict).',
    ERROR_EXAMPLES.threadBusy,
  )
  undo(
    @CurrentPrincipal() principal: Principal,
    @Param('threadId') threadId: string,
    @Body() body: UndoRequestDto,
  ): Promise<RevertResult> {
    return this.revertChanges.undo(principal, { threadId, ...(body.messageId ? { messageId: body.messageId } : {}) });
  }

  @Post('thread/:threadId/restore')
  @HttpCode(200)
  @RateLimited()
  @ApiOperation({
    summary: 'Restore the graph to what it was after a message',
    description:
      'Reverts every change the assistant applied after the message, newest first, as one operation (as undo does, with ' +
      'the same refusals). Editors and admins only.',
  })
  @ApiParam({ name: 'threadId', example: THREAD_EXAMPLE.threadId })
  @ApiBody({ type: RestoreRequestDto })
  @ApiResponse({ status: 200, description: 'What was reverted and refused.', schema: { example: REVERT_EXAMPLE } })
  @errorResponse(400, 'Invalid body.', ERROR_EXAMPLES.badRequest)
  @errorResponse(401, 'Missing, expired or invalid token.', ERROR_EXAMPLES.unauthorized)
  @errorResponse(403, 'Viewers cannot restore.', ERROR_EXAMPLES.forbidden)
  @errorResponse(404, 'No such thread of yours, or no such message in it.', ERROR_EXAMPLES.notFound)
  @errorResponse(
    409,
    'A run holds the thread (thread_busy), or nothing of the assistant is in effect there (conflict).',
    ERROR_EXAMPLES.threadBusy,
  )
  restore(
    @CurrentPrincipal() principal: Principal,
    @Param('threadId') threadId: string,
    @Body() body: RestoreRequestDto,
  ): Promise<RevertResult> {
    return this.revertChanges.restore(principal, { threadId, messageId: body.messageId });
  }

  @Delete('thread/:threadId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete one of your threads',
    description: 'Its usage stays counted in the workspace totals.',
  })
  @ApiParam({ name: 'threadId', example: THREAD_EXAMPLE.threadId })
  @ApiResponse({ status: 204, description: 'Deleted.' })
  @errorResponse(401, 'Missing, expired or invalid token.', ERROR_EXAMPLES.unauthorized)
  @errorResponse(404, 'No such thread of yours.', ERROR_EXAMPLES.notFound)
  async deleteThread(@CurrentPrincipal() principal: Principal, @Param('threadId') threadId: string): Promise<void> {
    await this.threadQueries.deleteThread(principal, threadId);
  }

  /**
   * Runs with a CollectingSink under the registry (so shutdown stops it too); the HTTP client going
   * away before the answer stops it like a socket disconnect.
   */
  private async collect(
    res: Response,
    run: (sink: AgentEventSink, signal: AbortSignal) => Promise<unknown>,
  ): Promise<AgentResult> {
    const sink = new CollectingSink();
    const active = this.runs.begin(HTTP_OWNER, randomUUID(), sink);
    if (!active) throw new AppError('internal', 'Run id collision');
    const onClose = () => {
      if (!res.writableFinished) active.stop('client_disconnect');
    };
    res.once('close', onClose);
    try {
      await this.tracer.withRemoteParent(res.req.headers, () => run(sink, active.signal));
      return sink.result();
    } finally {
      res.off('close', onClose);
      active.end();
    }
  }
}
