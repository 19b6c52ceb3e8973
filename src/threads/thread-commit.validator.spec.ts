import { assistantMessage, eventMessage, ragContext, systemPrompt, toolCall, toolResult, userMessage } from '../../test/support/thread-messages';
import { ThreadCommitValidationError } from './thread-commit-validation.error';
import { validateThreadCommit } from './thread-commit.validator';
import { ThreadMessage } from './thread.types';

const validate = (stored: ThreadMessage[], append: ThreadMessage[]) => () => validateThreadCommit('ai_t', stored, append);

describe(validateThreadCommit.name, () => {
  it('accepts a first round with parallel tool calls and their results in any order', () => {
    expect(
      validate([], [systemPrompt(), ragContext('c'), userMessage('Q'), assistantMessage(null, [toolCall('a'), toolCall('b')]), toolResult('b', 'rb'), toolResult('a', 'ra')]),
    ).not.toThrow();
  });

  it('accepts results committed later for calls left open by an interrupt (resume)', () => {
    const stored = [userMessage('Q'), assistantMessage(null, [toolCall('r1'), toolCall('w1', 'propose_create_node'), toolCall('r2')]), toolResult('r1', 'x')];
    expect(validate(stored, [toolResult('w1', '{"status":"approved"}'), toolResult('r2', 'y'), assistantMessage('Done')])).not.toThrow();
    expect(validate(stored, [toolResult('w1', '{"status":"rejected"}'), userMessage('new question')])).not.toThrow();
  });

  it('refuses a result for a call that was already answered', () => {
    const stored = [userMessage('Q'), assistantMessage(null, [toolCall('a')]), toolResult('a', 'x')];
    expect(validate(stored, [toolResult('a', 'again')])).toThrow(ThreadCommitValidationError);
    expect(validate([], [assistantMessage(null, [toolCall('a')]), toolResult('a', 'x'), toolResult('a', 'y')])).toThrow(/already has a result/);
  });

  it('refuses a result separated from its call, or for an unknown call', () => {
    const stored = [userMessage('Q'), assistantMessage(null, [toolCall('a')])];
    expect(validate(stored, [userMessage('Q2'), toolResult('a', 'late')])).toThrow(/answers no call/);
    expect(validate(stored, [toolResult('zzz', 'x')])).toThrow(/answers no call/);
    expect(validate([userMessage('Q')], [toolResult('a', 'x')])).toThrow(/answers no call/);
  });

  it('refuses malformed messages: missing or reused ids, tool message without call id, system without kind, bad tool calls', () => {
    const stored = [userMessage('Q')];
    expect(validate(stored, [{ ...userMessage('x'), id: '' }])).toThrow(/no id/);
    expect(validate(stored, [{ ...userMessage('x'), id: stored[0].id }])).toThrow(/already used/);
    const noCallId = { ...toolResult('a', 'x'), toolCallId: undefined };
    expect(validate([assistantMessage(null, [toolCall('a')])], [noCallId])).toThrow(/no toolCallId/);
    expect(validate(stored, [{ ...systemPrompt(), kind: undefined }])).toThrow(/no kind/);
    expect(validate(stored, [assistantMessage(null, [toolCall('a'), toolCall('a')])])).toThrow(/repeats/);
    expect(validate(stored, [assistantMessage(null, [toolCall('')])])).toThrow(/without id/);
    expect(validate(stored, [{ ...userMessage('x'), role: 'robot' as ThreadMessage['role'] }])).toThrow(/unknown role/);
  });

  it('accepts events anywhere, also between the results of one assistant message, without closing their run', () => {
    const stored = [userMessage('Q'), eventMessage('Loaded 2 nodes', 'DATA_ADDED'), assistantMessage(null, [toolCall('auto'), toolCall('wait')]), toolResult('auto', 'applied'), eventMessage('Created 1 node')];
    expect(validate(stored, [toolResult('wait', '{"status":"approved"}'), eventMessage('Deleted 1 node'), assistantMessage('Done')])).not.toThrow();
    expect(validate([userMessage('Q'), assistantMessage(null, [toolCall('a')])], [eventMessage('x'), toolResult('a', 'r')])).not.toThrow();
  });

  it('refuses an event message without a valid event', () => {
    expect(validate([], [{ ...eventMessage('x'), event: undefined }])).toThrow(/no valid event/);
    expect(validate([], [{ ...eventMessage('x'), event: { type: 'SOMETHING', summary: 'x', results: [] } as never }])).toThrow(/no valid event/);
  });
});
