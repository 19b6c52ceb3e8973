import { LlmMessage } from '../conversation/llm-message';
import { approximateTokens, estimateTokens, estimateToolTokens } from './token-estimate';

describe(estimateTokens.name, () => {
  it('approximates 3 characters per token', () => {
    expect(approximateTokens('')).toBe(0);
    expect(approximateTokens('abc')).toBe(1);
    expect(approximateTokens('abcd')).toBe(2);
  });

  it('counts content, tool calls and the framing of every message', () => {
    const messages: LlmMessage[] = [
      { role: 'user', content: 'x'.repeat(30) },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'abc', arguments: '{"a":1}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'y'.repeat(9) },
    ];
    expect(estimateTokens(messages)).toBe(4 + 10 + 4 + 4 + 1 + 3 + 4 + 3);
  });

  it('estimates each tool definitions array once', () => {
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'x', description: 'd'.repeat(300), parameters: { type: 'object' } },
      },
    ];
    const first = estimateToolTokens(tools);
    expect(first).toBe(approximateTokens(JSON.stringify(tools)));
    tools[0].function.description = '';
    expect(estimateToolTokens(tools)).toBe(first);
    expect(estimateToolTokens(undefined)).toBe(0);
  });
});
