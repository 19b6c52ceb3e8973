import { LlmMessage } from '../conversation/llm-message';
import { TokenCounter } from './token-counter';

describe(TokenCounter.name, () => {
  const counter = new TokenCounter();

  it('counts o200k_base tokens', () => {
    expect(counter.count('')).toBe(0);
    expect(counter.count('hello world')).toBe(2);
    expect(counter.count('word '.repeat(100))).toBeGreaterThanOrEqual(100);
  });

  it('treats special-token text as plain text instead of throwing', () => {
    expect(counter.count('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('counts a conversation with per-message overhead, tool calls and tool results', () => {
    const messages: LlmMessage[] = [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'hello world' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read_node_detail', arguments: '{"nodeKey":"root"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"key":"root"}' },
    ];
    const contents = counter.count('You are helpful.') + counter.count('hello world') + counter.count('{"key":"root"}');
    const call = counter.count('read_node_detail') + counter.count('{"nodeKey":"root"}');
    const total = counter.countMessages(messages);
    expect(total).toBeGreaterThan(contents + call);
    expect(total).toBeLessThan(contents + call + 40);
    expect(counter.countMessages([])).toBe(3);
    expect(counter.countMessages(messages.slice(0, 1))).toBeLessThan(total);
  });
});
