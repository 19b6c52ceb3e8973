import { Body, Controller, HttpCode, Inject, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { createUIMessageStream, pipeUIMessageStreamToResponse, type UIMessage, type UIMessageChunk } from 'ai';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { CurrentPrincipal } from '../../auth/current-principal.decorator';
import { canEdit, Principal } from '../../auth/principal';
import { RateLimited } from '../../auth/rate-limited.decorator';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/app-config.token';
import { AppError } from '../../errors/app-error';
import { GraphDataSourceFactory } from '../../graph/graph-data-source.factory';
import { Logger } from '../../observability/logger';
import { TokenTracker } from '../../providers/token.tracker';
import { ThreadService } from '../../threads/thread.service';
import { UiChatRequestDto } from '../dto/ui-chat-request.dto';
import { ActiveRunRegistry } from '../runs/active-run.registry';
import { TOKEN_FLUSH_INTERVAL_MS, TOKEN_FLUSH_MAX_CHARS, TokenFlushScheduler } from '../socket/token-flush.scheduler';
import { AskQuestion } from '../use-cases/ask-question.use-case';
import { ResumeInterrupt } from '../use-cases/resume-interrupt.use-case';
import { readUiChatTurn, threadIdOf, UiChatTurn } from './ui-chat-turn.reader';
import { UiMessageStreamSink } from './ui-message-stream.sink';

/** Owner of these runs in the ActiveRunRegistry, as the REST controller's. */
const HTTP_OWNER = 'http';
const logger = new Logger('ui-chat');

/**
 * The agent for applications built on the AI SDK (`useChat` of AI SDK 6, assistant-ui, AI Elements): the request of
 * useChat's default transport in, the UI message stream out (PROTOCOL.md §9.8). The same use cases, guards, policy,
 * budgets and rate limit as POST /api/ai/chat and /resume. What can be refused is refused before the stream starts,
 * with the REST error body and status (400, 402, 403, 404, 409, 413, 429); a failure once it has started is an `error`
 * part whose text is that error body as JSON. The client closing the stream stops the run, as a socket disconnect
 * does (the partial text is kept in the thread).
 */
@ApiTags('ai')
@ApiBearerAuth()
@Controller('ai')
export class UiChatController {
  /** One timer for the text of every stream of this route, as the gateway has for its sockets. */
  private readonly tokenFlush = new TokenFlushScheduler(TOKEN_FLUSH_INTERVAL_MS);

  constructor(
    private readonly askQuestion: AskQuestion,
    private readonly resumeInterrupt: ResumeInterrupt,
    private readonly threads: ThreadService,
    private readonly graphs: GraphDataSourceFactory,
    private readonly tokenTracker: TokenTracker,
    private readonly runs: ActiveRunRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('ui-chat')
  @HttpCode(200)
  @RateLimited()
  @ApiOperation({
    summary: 'Chat through the AI SDK UI message stream (useChat)',
    description:
      "Point useChat's DefaultChatTransport here, with `body: { graphKey }` and your token in `headers`. The last message " +
      'is the turn: a user message (a new question; a new thread when `id` is not one of your threads and no earlier ' +
      'answer named one), an assistant message whose proposal part is `approval-responded` (addToolApprovalResponse: ' +
      'the proposal approved or rejected), or a user message with a `data-answer` part `{ toolCallId, approved, answer? }` ' +
      '(the pending question answered). The answer is server-sent events with `x-vercel-ai-ui-message-stream: v1`: ' +
      '`start` (metadata `threadId`), text parts, dynamic tool parts, `data-event` / `data-apply`, a proposal as ' +
      '`data-proposal` then `tool-approval-request`, a question as `data-question`, then `finish`.',
  })
  @ApiBody({
    type: UiChatRequestDto,
    examples: {
      question: {
        value: {
          id: 'chat-1',
          trigger: 'submit-message',
          graphKey: 'nba-workflow',
          messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'What does fetch-api do?' }] }],
        },
      },
    },
  })
  @ApiProduces('text/event-stream')
  @ApiResponse({ status: 200, description: 'The UI message stream (SSE).' })
  @ApiResponse({ status: 400, description: 'Invalid body, a turn it cannot read, or regenerate (not supported).' })
  @ApiResponse({ status: 401, description: 'Missing, expired or invalid token.' })
  @ApiResponse({ status: 402, description: 'A usage limit is reached.' })
  @ApiResponse({ status: 403, description: 'A viewer deciding a proposal.' })
  @ApiResponse({ status: 404, description: 'No such graph in your workspace, or the thread is not yours.' })
  @ApiResponse({ status: 409, description: 'A decision for an interrupt that is not the pending one.' })
  async uiChat(
    @CurrentPrincipal() principal: Principal,
    @Body() body: UiChatRequestDto,
    @Res() res: Response,
  ): Promise<void> {
    const turn = await this.turnOf(principal, body);
    this.tokenTracker.assertWithinBudget();
    let write: ((chunk: UIMessageChunk) => void) | null = null;
    const coalescing = { scheduler: this.tokenFlush, maxChars: TOKEN_FLUSH_MAX_CHARS };
    const sink = new UiMessageStreamSink((chunk) => write?.(chunk), coalescing, {
      ...(turn.kind === 'resume' && turn.decision === 'approval'
        ? { decided: { toolCallId: turn.input.toolCallId as string, approved: turn.input.approved } }
        : {}),
    });
    const active = this.runs.begin(HTTP_OWNER, randomUUID(), sink);
    if (!active) throw new AppError('internal', 'Run id collision');
    const onClose = () => {
      if (!res.writableFinished) active.stop('client_disconnect');
    };
    res.once('close', onClose);
    const stream = createUIMessageStream({
      // The library's persistence mode: the answer continues the last assistant message (its id), or gets a new id.
      originalMessages: body.messages as unknown as UIMessage[],
      execute: async ({ writer }) => {
        write = (chunk) => writer.write(chunk);
        try {
          if (turn.kind === 'chat') await this.askQuestion.execute(principal, turn.input, sink, active.signal);
          else await this.resumeInterrupt.execute(principal, turn.input, sink, active.signal);
        } finally {
          sink.endText();
          res.off('close', onClose);
          active.end();
        }
      },
      onError: (error) => errorText(error, sink.threadId),
    });
    await pipeUIMessageStreamToResponse({ response: res, stream });
  }

  /** The request's turn, with everything that can be refused before streaming checked (answered as REST errors). */
  private async turnOf(principal: Principal, body: UiChatRequestDto): Promise<UiChatTurn> {
    if (body.trigger === 'regenerate-message')
      throw AppError.badRequest('regenerate is not supported: send a new message instead');
    if (!(await this.graphs.forWorkspace(principal.workspace).getGraph(body.graphKey)))
      throw AppError.notFound(`Graph "${body.graphKey}" not found`);
    const threadId = threadIdOf(body.id, body.messages);
    const thread = threadId ? await this.threads.load(principal, threadId, body.graphKey) : null;
    const turn = readUiChatTurn(body.messages, body.graphKey, threadId, thread?.pendingInterrupt ?? null);
    if (turn.kind === 'chat' && (turn.input.message ?? '').length > this.config.limits.messageMaxChars)
      throw new AppError(
        'payload_too_large',
        `message is longer than ${this.config.limits.messageMaxChars} characters`,
      );
    if (turn.kind === 'resume' && turn.decision === 'approval' && !canEdit(principal))
      throw AppError.forbidden('Only editors and admins can approve or reject proposals');
    return turn;
  }
}

/** The text of an `error` part: the REST error body, as JSON, for a client to parse; nothing internal leaks. */
function errorText(error: unknown, threadId: string | null): string {
  if (error instanceof AppError)
    return JSON.stringify({
      statusCode: error.statusCode,
      code: error.code,
      message: error.userMessage ?? error.message,
      ...(error.retryable ? { retryable: true } : {}),
      ...(threadId ? { threadId } : {}),
    });
  logger.error('ui_chat_failed', { threadId, error: error instanceof Error ? error.message : String(error) });
  return JSON.stringify({ statusCode: 500, code: 'internal', message: 'Internal error' });
}
