import type { ThreadRunEnd } from '../ai/runs/thread-runner';
import { AppError } from '../errors/app-error';
import { LlmProviderError } from '../providers/llm-provider.error';
import { EMPTY_USAGE, ThreadRecord } from '../threads/thread.types';
import { ABORTED_RUN_ERROR, runErrorOf, runOutcomeOf } from './run-outcome';

const thread = { threadId: 'ai_1', workspace: 'w', type: 'automation', automationId: 'aut_1' } as ThreadRecord;
const usage = { ...EMPTY_USAGE, promptTokens: 10, llmCalls: 1 };
const end = (overrides: Partial<ThreadRunEnd>): ThreadRunEnd => ({
  kind: 'automation',
  thread,
  ranLoop: true,
  usage,
  ...overrides,
});
const message = (aborted = false) => ({
  threadId: 'ai_1',
  type: 'message' as const,
  message: 'ok',
  toolCalls: [],
  usage: { ...usage },
  ...(aborted ? { aborted: true as const } : {}),
});

describe('runOutcomeOf', () => {
  it('records a run whose prompt was over the limit as skipped_too_large, with its text as the error', () => {
    const estimate = { tokens: 40_000, costUsd: null };
    const notSent = {
      ...message(),
      message: 'Not sent: too large',
      notSent: { reason: 'too_large' as const, estimate },
    };
    expect(runOutcomeOf(end({ result: notSent, ranLoop: false }), 5)).toEqual({
      outcome: 'skipped_too_large',
      finishedTime: 5,
      error: { code: 'too_large', message: 'Not sent: too large' },
      usage,
      threadId: 'ai_1',
    });
  });

  it('completes on an answer, stays interrupted (no end time) on an interrupt, fails on a stop', () => {
    expect(runOutcomeOf(end({ result: message() }), 5)).toEqual({
      outcome: 'completed',
      finishedTime: 5,
      error: null,
      usage,
      threadId: 'ai_1',
    });
    const interrupt = {
      kind: 'question' as const,
      questionKind: 'confirm' as const,
      toolCallId: 'c1',
      question: 'Go?',
    };
    expect(runOutcomeOf(end({ result: { ...message(), type: 'interrupt', interrupt } }), 5)).toEqual({
      outcome: 'interrupted',
      finishedTime: null,
      error: null,
      usage,
      threadId: 'ai_1',
    });
    expect(runOutcomeOf(end({ result: message(true) }), 5)).toMatchObject({
      outcome: 'failed',
      error: ABORTED_RUN_ERROR,
    });
  });

  it('fails with the code and the user text of an error', () => {
    expect(runOutcomeOf(end({ error: new AppError('budget_exceeded', 'Budget reached') }), 5)).toMatchObject({
      outcome: 'failed',
      finishedTime: 5,
      error: { code: 'budget_exceeded', message: 'Budget reached' },
    });
  });

  it('leaves the run alone when a resume was refused before the loop (a racing resume, a viewer, a spent budget)', () => {
    expect(
      runOutcomeOf(
        end({ kind: 'resume', ranLoop: false, error: AppError.conflict('No pending interrupt on this thread') }),
        5,
      ),
    ).toBeNull();
    expect(runOutcomeOf(end({ kind: 'resume', ranLoop: true, result: message() }), 5)).toMatchObject({
      outcome: 'completed',
    });
    // The automation's own run fails whenever it ends before its loop (its budget, a retrieval failure).
    expect(
      runOutcomeOf(end({ kind: 'automation', ranLoop: false, error: new AppError('budget_exceeded', 'x') }), 5),
    ).toMatchObject({ outcome: 'failed' });
  });
});

describe('runErrorOf', () => {
  it("keeps an upstream failure's user text, never its raw message (which may echo a key)", () => {
    const upstream = new LlmProviderError(
      {
        code: 'auth_error',
        retryable: false,
        provider: 'openai',
        statusCode: 401,
        retryAfterMs: null,
        userMessage: 'The AI provider refused the credentials.',
      } as never,
      new Error('401 Incorrect API key provided: sk-secret-1234'),
    );
    expect(runErrorOf(upstream)).toEqual({ code: 'auth_error', message: 'The AI provider refused the credentials.' });
    expect(runErrorOf(new TypeError('boom: sk-secret'))).toEqual({
      code: 'internal',
      message: 'Internal error (see the service logs)',
    });
  });
});
