import { assistantMessage, ragContext, systemPrompt, userMessage } from '../../../test/support/thread-messages';
import { LogEntry } from '../../observability/log-entry';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { buildLlmHistory } from './llm-history.builder';
import { assertThreadIsolation, foreignMessages } from './thread-isolation.guard';

const countTokens = (text: string): number => Math.ceil(text.length / 4);
const of = <Message extends object>(threadId: string, message: Message): Message => ({ ...message, threadId });

describe('thread isolation', () => {
  let logs: LogEntry[];
  beforeEach(() => {
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(() => resetLogSink());

  it('carries each stored message’s thread into what the model is sent', () => {
    const stored = [
      of('ai_a', systemPrompt('P')),
      of('ai_a', userMessage('Q1')),
      of('ai_a', assistantMessage('A1')),
      of('ai_a', userMessage('Q2')),
    ];
    const history = buildLlmHistory({ threadId: 'ai_a', messages: stored, maxTokens: 10_000, countTokens });
    expect(history.messages.map((message) => message.threadId)).toEqual(['ai_a', 'ai_a', 'ai_a', 'ai_a']);
  });

  it('refuses a history holding a message of another thread, and logs which thread without the content', () => {
    const stored = [
      of('ai_a', systemPrompt('P')),
      of('ai_a', userMessage('mine')),
      of('ai_b', assistantMessage('secret of b')),
      of('ai_a', userMessage('Q2')),
    ];
    expect(() => buildLlmHistory({ threadId: 'ai_a', messages: stored, maxTokens: 10_000, countTokens })).toThrow(
      expect.objectContaining({ code: 'internal', details: { threadId: 'ai_a' } }),
    );
    const violation = logs.find((entry) => entry.event === 'thread_isolation_violation');
    expect(violation).toMatchObject({
      level: 'error',
      threadId: 'ai_a',
      where: 'history',
      foreignMessages: 1,
      foreignThreadIds: ['ai_b'],
      roles: ['assistant'],
    });
    expect(JSON.stringify(logs)).not.toContain('secret of b');
  });

  it('refuses another thread’s context given for the current question', () => {
    const stored = [of('ai_a', systemPrompt('P')), of('ai_a', userMessage('Q'))];
    expect(() =>
      buildLlmHistory({
        threadId: 'ai_a',
        messages: stored,
        currentContext: of('ai_b', ragContext('C')),
        maxTokens: 10_000,
        countTokens,
      }),
    ).toThrow();
  });

  it('reads messages without a thread id (per-call notes, threads stored before) as the thread’s own', () => {
    const messages: Array<{ role: string; threadId?: string }> = [
      { role: 'system' },
      { role: 'user', threadId: 'ai_a' },
      { role: 'assistant' },
    ];
    expect(foreignMessages(messages, 'ai_a')).toEqual([]);
    expect(() => assertThreadIsolation(messages, 'ai_a', 'call')).not.toThrow();
    expect(logs).toEqual([]);
  });
});
