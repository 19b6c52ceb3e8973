import type { UIMessageChunk } from 'ai';
import type { ThreadEvent } from '../../conversation/thread-event';
import type { ApplyRequest } from '../actions/checked-action';
import type { AgentEventSink } from '../agent/agent-event.sink';
import type { AgentResult } from '../agent/agent-result';
import type { GenerationProgress } from '../runs/active-run.registry';
import type { TokenFlushScheduler } from '../socket/token-flush.scheduler';
import { TokenTextCoalescer } from '../socket/token-text.coalescer';

/** The decision a follow-up request carried: its tool call's part gets the outcome instead of a second input. */
export interface DecidedProposal {
  toolCallId: string;
  approved: boolean;
}

/** How the text is coalesced: the Socket.IO gateway's scheduler setting (TOKEN_FLUSH_INTERVAL_MS, TOKEN_FLUSH_MAX_CHARS). */
export interface TextCoalescing {
  scheduler: TokenFlushScheduler;
  maxChars: number;
}

/**
 * A run's events as the AI SDK's UI message stream: `start` (with the thread in the message
 * metadata, `threadId`), the text in `text-start` / `text-delta` / `text-end` parts (the model's fragments coalesced
 * as on Socket.IO: one `text-delta` per flush window or per 4 KB, sent before any other part), each tool call as
 * `tool-input-available` / `tool-output-available` (dynamic tools: the client need not know them), thread events and
 * changes for the caller's editor as data parts, and `finish`. A proposal waiting for a human is a tool part with
 * `tool-approval-request` (its approval id is the tool call's id) preceded by `data-proposal` (the preview); a question
 * is a `data-question` part. On a resume the decided proposal's existing part gets `tool-output-available` (approved)
 * or `tool-output-denied`, and the text continues the same assistant message.
 */
export class UiMessageStreamSink implements AgentEventSink, GenerationProgress {
  threadId: string | null = null;
  tokensStreamed = 0;
  private textPart: string | null = null;
  private parts = 0;
  private readonly announced = new Set<string>();
  private finished = false;
  private readonly text: TokenTextCoalescer;

  constructor(
    private readonly write: (chunk: UIMessageChunk) => void,
    coalescing: TextCoalescing,
    private readonly options: { decided?: DecidedProposal } = {},
  ) {
    this.text = new TokenTextCoalescer(coalescing.scheduler, coalescing.maxChars, (delta) => {
      if (this.textPart !== null) this.write({ type: 'text-delta', id: this.textPart, delta });
    });
  }

  thread(threadId: string): void {
    if (this.threadId !== null) return;
    this.threadId = threadId;
    // No messageId: useChat continues the last assistant message after an approval, and starts one otherwise.
    this.write({ type: 'start', messageMetadata: { threadId } });
  }

  token(text: string): void {
    if (text.length === 0) return;
    if (this.textPart === null) {
      this.textPart = `text-${++this.parts}`;
      this.write({ type: 'text-start', id: this.textPart });
    }
    this.tokensStreamed++;
    this.text.add(text);
  }

  /** Sends the buffered text and ends its part: before the stream's `error` part when the run threw. */
  endText(): void {
    if (this.textPart === null) return;
    this.text.flushNow();
    this.write({ type: 'text-end', id: this.textPart });
    this.textPart = null;
  }

  toolStart(toolCallId: string, toolName: string, rawArguments?: string): void {
    this.endText();
    if (toolCallId === this.options.decided?.toolCallId) return;
    this.announce(toolCallId, toolName, parseJson(rawArguments ?? '{}'));
  }

  toolResult(toolCallId: string, result: string): void {
    this.endText();
    const decided = this.options.decided;
    if (decided?.toolCallId === toolCallId && !decided.approved) {
      this.write({ type: 'tool-output-denied', toolCallId });
      return;
    }
    this.write({ type: 'tool-output-available', toolCallId, output: parseJson(result), dynamic: true });
  }

  event(event: ThreadEvent): void {
    this.endText();
    this.write({ type: 'data-event', data: event });
  }

  apply(action: ApplyRequest): void {
    this.endText();
    this.write({ type: 'data-apply', id: action.operationId, data: action });
  }

  complete(result: AgentResult): void {
    if (this.finished) return;
    this.finished = true;
    this.endText();
    if (this.threadId === null) this.thread(result.threadId);
    if (result.type === 'interrupt') {
      const { interrupt } = result;
      const toolCallId = interrupt.toolCallId;
      if (interrupt.kind === 'approval') {
        const call = result.toolCalls.find((summary) => summary.id === toolCallId);
        this.announce(toolCallId, call?.name ?? 'propose_change', parseJson(call?.arguments ?? '{}'));
        this.write({ type: 'data-proposal', id: toolCallId, data: interrupt });
        this.write({ type: 'tool-approval-request', approvalId: toolCallId, toolCallId });
      } else {
        this.write({ type: 'data-question', id: toolCallId, data: interrupt });
      }
    }
    if (result.type === 'message' && result.aborted) {
      this.write({ type: 'abort', reason: 'stopped' });
      return;
    }
    this.write({
      type: 'finish',
      finishReason: result.type === 'interrupt' ? 'tool-calls' : 'stop',
      messageMetadata: {
        threadId: result.threadId,
        usage: result.usage,
        ...(result.type === 'interrupt' ? { interrupt: result.interrupt.kind } : {}),
        ...(result.resolution ? { resolution: result.resolution } : {}),
      },
    });
  }

  private announce(toolCallId: string, toolName: string, input: unknown): void {
    if (this.announced.has(toolCallId)) return;
    this.announced.add(toolCallId);
    this.write({ type: 'tool-input-available', toolCallId, toolName, input, dynamic: true });
  }
}

/** A tool's arguments or result as JSON when they are (they always are from the loop), else the text itself. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
