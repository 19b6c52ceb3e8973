import {
  assistantMessage,
  eventMessage,
  ragContext,
  systemPrompt,
  toolCall,
  toolResult,
  userMessage,
} from '../../test/support/thread-messages';
import { ThreadCommitValidationError } from './thread-commit-validation.error';
import { validateThreadCommit } from './thread-commit.validator';
import { ThreadMessage } from './thread.types';

const validate = (stored: ThreadMessage[], append: ThreadMessage[]) => () =>
  validateThreadCommit('ai_t', stored, append);

describe(validateThreadCommit.name, () => {
  it('accepts a first round with parallel tool calls and their results in any order', () => {
    expect(
      validate(
        [],
        [
          systemPrompt(),
          ragContext('c'),
          userMessage('Q'),
          assistantMessage(null, [toolCall('a'), toolCall('b')]),
          toolResult('b', '{"rb":1}'),
          toolResult('a', '{"ra":1}'),
        ],
      ),
    ).not.toThrow();
  });

  it('accepts results committed later for calls left open by an interrupt (resume)', () => {
    const stored = [
      userMessage('Q'),
      assistantMessage(null, [toolCall('r1'), toolCall('w1', 'propose_create_node'), toolCall('r2')]),
      toolResult('r1', '{}'),
    ];
    const approved = toolResult('w1', '{"status":"approved"}', 'propose_create_node');
    expect(validate(stored, [approved, toolResult('r2', '{"y":1}'), assistantMessage('Done')])).not.toThrow();
    expect(
      validate(stored, [
        toolResult('w1', '{"status":"rejected"}', 'propose_create_node', false),
        userMessage('new question'),
      ]),
    ).not.toThrow();
  });

  it('refuses a result for a call that was already answered', () => {
    const stored = [userMessage('Q'), assistantMessage(null, [toolCall('a')]), toolResult('a', '{}')];
    expect(validate(stored, [toolResult('a', '{}')])).toThrow(ThreadCommitValidationError);
    expect(
      validate([], [assistantMessage(null, [toolCall('a')]), toolResult('a', '{}'), toolResult('a', '{}')]),
    ).toThrow(/already has a result/);
  });

  it('refuses a result separated from its call, or for an unknown call', () => {
    const stored = [userMessage('Q'), assistantMessage(null, [toolCall('a')])];
    expect(validate(stored, [userMessage('Q2'), toolResult('a', '{}')])).toThrow(/answers no call/);
    expect(validate(stored, [toolResult('zzz', '{}')])).toThrow(/answers no call/);
    expect(validate([userMessage('Q')], [toolResult('a', '{}')])).toThrow(/answers no call/);
  });

  it('refuses a tool result without the name of its call, a JSON object, its success or its duration', () => {
    const stored = [userMessage('Q'), assistantMessage(null, [toolCall('a', 'search_nodes')])];
    const result = toolResult('a', '{"nodes":[]}', 'search_nodes');
    expect(validate(stored, [result])).not.toThrow();
    expect(validate(stored, [{ ...result, toolName: undefined }])).toThrow(/call a\) has no toolName/);
    expect(validate(stored, [{ ...result, toolName: 'read_node_detail' }])).toThrow(
      /is named read_node_detail but its call is search_nodes/,
    );
    for (const content of ['not json', '[1,2]', '"text"', 'null', '{"cut": "mid-str', null]) {
      expect(validate(stored, [{ ...result, content }])).toThrow(/does not hold a JSON object/);
    }
    expect(validate(stored, [{ ...result, success: undefined }])).toThrow(/whether it succeeded/);
    expect(validate(stored, [{ ...result, durationMs: -1 }])).toThrow(/no durationMs/);
    expect(validate(stored, [{ ...result, durationMs: Number.NaN }])).toThrow(/no durationMs/);
  });

  it('refuses a message of another thread', () => {
    expect(validate([], [{ ...userMessage('Q'), threadId: 'ai_t' }])).not.toThrow();
    expect(validate([], [{ ...userMessage('Q'), threadId: 'ai_other' }])).toThrow(/belongs to another thread/);
  });

  it('refuses malformed messages: missing or reused ids, tool message without call id, system without kind, bad tool calls', () => {
    const stored = [userMessage('Q')];
    expect(validate(stored, [{ ...userMessage('x'), id: '' }])).toThrow(/no id/);
    expect(validate(stored, [{ ...userMessage('x'), id: stored[0].id }])).toThrow(/already used/);
    const noCallId = { ...toolResult('a', '{}'), toolCallId: undefined };
    expect(validate([assistantMessage(null, [toolCall('a')])], [noCallId])).toThrow(/no toolCallId/);
    expect(validate(stored, [{ ...systemPrompt(), kind: undefined }])).toThrow(/no kind/);
    expect(validate(stored, [assistantMessage(null, [toolCall('a'), toolCall('a')])])).toThrow(/repeats/);
    expect(validate(stored, [assistantMessage(null, [toolCall('')])])).toThrow(/without id/);
    expect(validate(stored, [{ ...userMessage('x'), role: 'robot' as ThreadMessage['role'] }])).toThrow(/unknown role/);
  });

  it('accepts events anywhere, also between the results of one assistant message, without closing their run', () => {
    const stored = [
      userMessage('Q'),
      eventMessage('Loaded 2 nodes', 'DATA_ADDED'),
      assistantMessage(null, [toolCall('auto'), toolCall('wait')]),
      toolResult('auto', '{"status":"applied"}'),
      eventMessage('Created 1 node'),
    ];
    expect(
      validate(stored, [
        toolResult('wait', '{"status":"approved"}'),
        eventMessage('Deleted 1 node'),
        assistantMessage('Done'),
      ]),
    ).not.toThrow();
    expect(
      validate([userMessage('Q'), assistantMessage(null, [toolCall('a')])], [eventMessage('x'), toolResult('a', '{}')]),
    ).not.toThrow();
  });

  it('refuses an event message without a valid event', () => {
    expect(validate([], [{ ...eventMessage('x'), event: undefined }])).toThrow(/no valid event/);
    expect(
      validate([], [{ ...eventMessage('x'), event: { type: 'SOMETHING', summary: 'x', results: [] } as never }]),
    ).toThrow(/no valid event/);
  });
});
