import type { LlmMessage, LlmToolCall } from '../../conversation/llm-message';
import { MISSING_TOOL_RESULT_CONTENT, sanitizeToolCallPairing } from './tool-call-pairing.sanitizer';

const call = (id: string, name = 'search_nodes'): LlmToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: '{}' },
});
const assistant = (...ids: string[]): LlmMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => call(id)),
});
const result = (id: string, content = `result ${id}`): LlmMessage => ({ role: 'tool', tool_call_id: id, content });
const missing = (id: string, name = 'search_nodes'): LlmMessage => ({
  role: 'tool',
  tool_call_id: id,
  content: MISSING_TOOL_RESULT_CONTENT,
  name,
});
const user = (content: string): LlmMessage => ({ role: 'user', content });
const system: LlmMessage = { role: 'system', content: 'P', cacheBreakpoint: true };

describe(sanitizeToolCallPairing.name, () => {
  it('leaves a well-formed history with parallel tool calls untouched', () => {
    const messages = [
      system,
      user('Q'),
      assistant('a', 'b', 'c'),
      result('a'),
      result('b'),
      result('c'),
      { role: 'assistant', content: 'done' } as LlmMessage,
    ];
    const sanitized = sanitizeToolCallPairing(messages);
    expect(sanitized.messages).toEqual(messages);
    expect(sanitized.synthesizedResults).toEqual([]);
    expect(sanitized.droppedResults).toBe(0);
  });

  it('keeps results in the order they were stored, even when it differs from the call order', () => {
    const messages = [user('Q'), assistant('a', 'b'), result('b'), result('a')];
    expect(sanitizeToolCallPairing(messages).messages).toEqual(messages);
  });

  it('adds a failed result for each call of an interrupted round, after the results that exist', () => {
    const sanitized = sanitizeToolCallPairing([user('Q'), assistant('a', 'b', 'c'), result('b'), user('Q2')]);
    expect(sanitized.messages).toEqual([
      user('Q'),
      assistant('a', 'b', 'c'),
      result('b'),
      missing('a'),
      missing('c'),
      user('Q2'),
    ]);
    expect(sanitized.synthesizedResults).toEqual(['a', 'c']);
    expect(JSON.parse(MISSING_TOOL_RESULT_CONTENT)).toEqual({ status: 'failed', message: 'no result recorded' });
  });

  it('repairs a crash right after the assistant message at the end of the history', () => {
    expect(sanitizeToolCallPairing([user('Q'), assistant('a')]).messages).toEqual([
      user('Q'),
      assistant('a'),
      missing('a'),
    ]);
  });

  it('gives a stand-in result the thread and the tool name of its call', () => {
    const scoped: LlmMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [call('a', 'read_node_detail')],
      threadId: 'ai_t1',
    };
    expect(sanitizeToolCallPairing([user('Q'), scoped]).messages[2]).toEqual({
      ...missing('a', 'read_node_detail'),
      threadId: 'ai_t1',
    });
  });

  it('handles a superseded interrupt whose batch remainder was never answered', () => {
    // write w1 interrupted; a new message rejected it, but the read r2 after it got no result
    const rejected = result(
      'w1',
      '{"status":"rejected","message":"Action refused","feedback":"superseded by a new message"}',
    );
    const sanitized = sanitizeToolCallPairing([user('Q1'), assistant('w1', 'r2'), rejected, user('Q2')]);
    expect(sanitized.messages).toEqual([user('Q1'), assistant('w1', 'r2'), rejected, missing('r2'), user('Q2')]);
  });

  it('drops tool messages without their call: orphans, duplicates, unknown ids, and results separated from their call', () => {
    const sanitized = sanitizeToolCallPairing([
      result('orphan'),
      user('Q'),
      assistant('a'),
      result('a', 'first'),
      result('a', 'duplicate'),
      result('zzz'),
      user('Q2'),
      result('a', 'late'),
    ]);
    expect(sanitized.messages).toEqual([user('Q'), assistant('a'), result('a', 'first'), user('Q2')]);
    expect(sanitized.droppedResults).toBe(4);
  });

  it('pairs each batch of a chain of rounds with its own assistant message', () => {
    const sanitized = sanitizeToolCallPairing([
      user('Q'),
      assistant('a'),
      result('a'),
      assistant('b'),
      result('a'),
      result('b'),
    ]);
    expect(sanitized.messages).toEqual([user('Q'), assistant('a'), result('a'), assistant('b'), result('b')]);
  });

  it('removes an empty tool_calls array and merges nothing (consecutive user messages stay apart)', () => {
    const emptyCalls: LlmMessage = { role: 'assistant', content: 'hi', tool_calls: [] };
    const input = [user('a'), user('b'), emptyCalls];
    const sanitized = sanitizeToolCallPairing(input);
    expect(sanitized.messages).toEqual([user('a'), user('b'), { role: 'assistant', content: 'hi' }]);
    expect(input[2]).toEqual({ role: 'assistant', content: 'hi', tool_calls: [] });
  });
});
