import type { LlmToolCall } from '../conversation/llm-message';
import { toLlmMessages } from './history/llm-history.converter';
import { toThreadMessage } from './thread-message.factory';

const call: LlmToolCall = {
  id: 'c1',
  type: 'function',
  function: { name: 'search_nodes', arguments: '{"query":"fetch"}' },
};

describe(toThreadMessage.name, () => {
  it('stores each role in the thread shape with an id and a timestamp', () => {
    const prompt = toThreadMessage({ role: 'system', content: 'P', cacheBreakpoint: true }, { createdTime: 5 });
    expect(prompt).toEqual({
      id: expect.stringMatching(/^msg_/),
      role: 'system',
      kind: 'system_prompt',
      content: 'P',
      createdTime: 5,
    });
    expect(toThreadMessage({ role: 'system', content: 'C' }).kind).toBe('rag_context');
    expect(toThreadMessage({ role: 'assistant', content: null, tool_calls: [call] })).toMatchObject({
      role: 'assistant',
      toolCalls: [call],
    });
    expect(toThreadMessage({ role: 'tool', content: 'r', tool_call_id: 'c1' })).toMatchObject({
      role: 'tool',
      toolCallId: 'c1',
    });
    expect(toThreadMessage({ role: 'assistant', content: 'par' }, { aborted: true })).toMatchObject({
      aborted: true,
      content: 'par',
    });
    expect(toThreadMessage({ role: 'assistant', content: 'done' })).not.toHaveProperty('aborted');
  });

  it('round-trips through toLlmMessages', () => {
    const sent = [
      { role: 'system' as const, content: 'P', cacheBreakpoint: true },
      { role: 'system' as const, content: 'C' },
      { role: 'user' as const, content: 'Q' },
      { role: 'assistant' as const, content: null, tool_calls: [call] },
      { role: 'tool' as const, content: 'r', tool_call_id: 'c1' },
      { role: 'assistant' as const, content: 'A' },
    ];
    expect(toLlmMessages(sent.map((message) => toThreadMessage(message)))).toEqual(sent);
  });
});
