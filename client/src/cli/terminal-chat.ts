import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { AiChatClient } from '../ai-chat.client';
import type { AiRequest, AiRequestHandlers, AiRequestOutcome } from '../ai-request';
import { describeProposal } from '../protocol';
import type { ApprovalInterrupt, Interrupt, QuestionInterrupt } from '../protocol';
import { formatUsage } from '../usage-format';

export interface TerminalChatOptions {
  client: AiChatClient;
  graphKey: string;
  input: Readable;
  output: Writable;
  /** ANSI styles (a terminal without NO_COLOR). */
  color: boolean;
  /** Continue this thread instead of starting one. */
  threadId?: string;
  /** The graph's sheetsList, to name sheets in proposals. */
  sheets?: Record<string, string>;
}

type Style = (text: string) => string;

const EFFECT_MARK = { create: '+', update: '~', move: '→', delete: '-' } as const;

/**
 * The terminal chat (npm run ai:chat): reads questions line by line, streams each answer as it comes,
 * shows tool calls, asks y/n/feedback on a proposal and offers a question's options. `/new` starts a new
 * conversation, `/quit` (or end of input) leaves, Ctrl+C stops an answer.
 */
export class TerminalChat {
  private threadId: string | null;
  private active: AiRequest | null = null;
  private atLineStart = true;
  private readonly lines: AsyncIterator<string>;
  private readonly dim: Style;
  private readonly bold: Style;
  private readonly red: Style;

  constructor(private readonly options: TerminalChatOptions) {
    this.threadId = options.threadId ?? null;
    const style = (code: string): Style =>
      options.color ? (text) => `\u001b[${code}m${text}\u001b[0m` : (text) => text;
    this.dim = style('2');
    this.bold = style('1');
    this.red = style('31');
    // Lines are read through the iterator, which keeps those typed (or piped) before they are asked for.
    const reader = createInterface({ input: options.input, terminal: false, crlfDelay: Infinity });
    this.lines = reader[Symbol.asyncIterator]();
  }

  /** Ctrl+C: stops the answer being written; true when there was one. */
  interrupt(): boolean {
    if (!this.active) return false;
    this.active.stop();
    return true;
  }

  /** Runs until /quit or the end of input. */
  async run(): Promise<void> {
    this.write(
      this.dim(
        `Graph "${this.options.graphKey}". Ask a question; /new starts a new conversation, /quit leaves, Ctrl+C stops an answer.\n`,
      ),
    );
    for (;;) {
      const line = await this.ask(this.bold('you › '));
      if (line === null || line.trim() === '/quit') return;
      const text = line.trim();
      if (text === '') continue;
      if (text === '/new') {
        this.threadId = null;
        this.write(this.dim('New conversation.\n'));
        continue;
      }
      const send = () =>
        this.options.client.chat(
          { graphKey: this.options.graphKey, message: text, ...(this.threadId ? { threadId: this.threadId } : {}) },
          this.handlers(),
        );
      if (!(await this.converse(send))) return;
    }
  }

  /**
   * Runs one request, then whatever it leads to (an interrupt answered, a retry), until an answer ends
   * without needing the user. False when the input ended meanwhile.
   */
  private async converse(send: () => AiRequest): Promise<boolean> {
    let next: (() => AiRequest) | null = send;
    while (next) {
      this.write(this.bold('ai  › '));
      this.atLineStart = false;
      const request = next();
      this.active = request;
      const outcome: AiRequestOutcome = await request.done;
      this.active = null;
      if (request.threadId) this.threadId = request.threadId;
      next = null;
      if (outcome.type === 'error') {
        this.endLine();
        this.write(this.red(`✗ ${outcome.error.error} (${outcome.error.code})\n`));
        if (!outcome.error.retryable) return true;
        const answer = await this.ask('Retry? [y/n]: ');
        if (answer === null) return false;
        if (/^y/i.test(answer.trim())) next = send;
        continue;
      }
      // A chat or a resume ends complete; only an undo or a restore ends reverted.
      if (outcome.type !== 'complete') return true;
      const { event } = outcome;
      this.endLine();
      if (event.aborted) this.write(this.dim('(stopped)\n'));
      this.write(this.dim(`(${formatUsage(event.usage)})\n`));
      if (event.interrupt) {
        const decision = await this.decide(event.interrupt, event.threadId);
        if (decision === null) return false;
        next = decision;
      }
    }
    return true;
  }

  /** Asks the user about an interrupt; returns the resume to send, or null at the end of input. */
  private async decide(interrupt: Interrupt, threadId: string): Promise<(() => AiRequest) | null> {
    const resume =
      (approved: boolean, extra: { feedback?: string; answer?: string } = {}) =>
      () =>
        this.options.client.resume({ threadId, approved, ...extra }, this.handlers());
    if (interrupt.kind === 'approval') return this.decideApproval(interrupt, resume);
    return this.answerQuestion(interrupt, resume);
  }

  private async decideApproval(
    interrupt: ApprovalInterrupt,
    resume: (approved: boolean, extra?: { feedback?: string }) => () => AiRequest,
  ): Promise<(() => AiRequest) | null> {
    const description = describeProposal(interrupt, this.options.sheets);
    this.write(`${this.bold(`The assistant proposes: ${description.title}`)}\n  ${description.headline}\n`);
    if (description.reason) this.write(`  Why: ${description.reason}\n`);
    for (const change of description.changes) {
      this.write(`  ${EFFECT_MARK[change.effect]} ${change.summary}\n`);
      for (const detail of change.details) this.write(this.dim(`      ${detail}\n`));
    }
    for (;;) {
      const answer = await this.ask('Approve? [y]es / [n]o / [f]eedback: ');
      if (answer === null) return null;
      const choice = answer.trim().toLowerCase();
      if (choice === 'y' || choice === 'yes') return resume(true);
      if (choice === 'n' || choice === 'no') return resume(false);
      if (choice === 'f' || choice === 'feedback') {
        const feedback = await this.ask('Feedback: ');
        if (feedback === null) return null;
        const approve = await this.ask('Approve with this feedback? [y/n]: ');
        if (approve === null) return null;
        return resume(/^y/i.test(approve.trim()), feedback.trim() ? { feedback: feedback.trim() } : {});
      }
    }
  }

  private async answerQuestion(
    interrupt: QuestionInterrupt,
    resume: (approved: boolean, extra?: { answer?: string }) => () => AiRequest,
  ): Promise<(() => AiRequest) | null> {
    this.write(`${this.bold('The assistant asks:')} ${interrupt.question}\n`);
    if (interrupt.questionKind === 'confirm') {
      for (;;) {
        const answer = await this.ask('[y/n]: ');
        if (answer === null) return null;
        if (/^y(es)?$/i.test(answer.trim())) return resume(true);
        if (/^no?$/i.test(answer.trim())) return resume(false);
      }
    }
    const options = interrupt.options ?? [];
    options.forEach((option, index) => this.write(`  ${index + 1}) ${option}\n`));
    for (;;) {
      const answer = await this.ask(`Answer [1-${options.length}, or 0 to decline]: `);
      if (answer === null) return null;
      const text = answer.trim();
      if (text === '0') return resume(false);
      const chosen = /^\d+$/.test(text) ? options[Number(text) - 1] : options.find((option) => option === text);
      if (chosen !== undefined) return resume(true, { answer: chosen });
    }
  }

  private handlers(): AiRequestHandlers {
    return {
      onText: (delta) => {
        this.write(delta);
        this.atLineStart = delta.endsWith('\n');
      },
      onToolStart: (event) => {
        this.endLine();
        this.write(this.dim(`  ⚙ ${event.toolName}\n`));
        this.atLineStart = true;
      },
      onToolResult: (event) => {
        const status = statusOf(event.result);
        if (status) this.write(this.dim(`  ↳ ${status}\n`));
      },
      onEvent: (event) => {
        this.endLine();
        this.write(this.dim(`  [${event.event.type}] ${event.event.summary}\n`));
      },
    };
  }

  private async ask(prompt: string): Promise<string | null> {
    this.write(prompt);
    const next = await this.lines.next();
    if (next.done) {
      this.write('\n');
      return null;
    }
    return next.value;
  }

  private endLine(): void {
    if (!this.atLineStart) this.write('\n');
    this.atLineStart = true;
  }

  private write(text: string): void {
    this.options.output.write(text);
  }
}

/** The status a tool result reports (a proposal's decision, a refused call), if it is JSON with one. */
function statusOf(result: string): string | null {
  if (!result.startsWith('{')) return null;
  try {
    const { status, message } = JSON.parse(result) as { status?: unknown; message?: unknown };
    if (typeof status !== 'string' || status === 'ok') return null;
    return typeof message === 'string' ? `${status}: ${message}` : status;
  } catch {
    return null;
  }
}
