import type { LlmMessage } from '../../conversation/llm-message';
import { estimateTokens } from '../../providers/token-estimate';
import { pruneHistoryBlocks } from './history-block.pruner';
import { sanitizeToolCallPairing } from './tool-call-pairing.sanitizer';

const countTokens = (text: string): number => Math.ceil(text.length / 4);
const system = (content: string, cacheBreakpoint?: true): LlmMessage => ({
  role: 'system',
  content,
  ...(cacheBreakpoint ? { cacheBreakpoint } : {}),
});
const user = (content: string): LlmMessage => ({ role: 'user', content });
const answer = (content: string): LlmMessage => ({ role: 'assistant', content });
const calls = (...ids: string[]): LlmMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => ({
    id,
    type: 'function',
    function: { name: 'read_node_detail', arguments: `{"nodeKey":"${id}"}` },
  })),
});
const result = (id: string, size = 400): LlmMessage => ({ role: 'tool', tool_call_id: id, content: 'r'.repeat(size) });

/** Prompt, three old blocks with parallel tool calls, then the current question with its context. */
function conversation(): LlmMessage[] {
  return [
    system('PROMPT '.repeat(50), true),
    user('Q1'),
    calls('a', 'b'),
    result('a'),
    result('b'),
    answer('A1'),
    user('Q2'),
    calls('c'),
    result('c'),
    calls('d'),
    result('d'),
    answer('A2'),
    user('Q3'),
    answer('A3 '.repeat(100)),
    system('CONTEXT '.repeat(100)),
    user('Q4'),
    calls('e'),
    result('e'),
  ];
}

describe(pruneHistoryBlocks.name, () => {
  it('changes nothing when the history fits', () => {
    const messages = conversation();
    const pruned = pruneHistoryBlocks(messages, { maxTokens: 100_000, countTokens });
    expect(pruned.messages).toEqual(messages);
    expect(pruned.prunedBlocks).toBe(0);
    expect(pruned.estimatedTokens).toBe(estimateTokens(messages, countTokens));
  });

  it('drops whole blocks from the oldest until it fits, keeping the prompt and the current block', () => {
    const messages = conversation();
    const total = estimateTokens(messages, countTokens);
    const firstBlock = estimateTokens(messages.slice(1, 6), countTokens);
    const pruned = pruneHistoryBlocks(messages, { maxTokens: total - firstBlock, countTokens });
    expect(pruned.prunedBlocks).toBe(1);
    expect(pruned.messages).toEqual([messages[0], ...messages.slice(6)]);
    expect(pruned.estimatedTokens).toBe(total - firstBlock);
  });

  it('keeps the current question context with its question', () => {
    const pruned = pruneHistoryBlocks(conversation(), { maxTokens: 1, countTokens });
    const messages = conversation();
    expect(pruned.messages).toEqual([messages[0], ...messages.slice(14)]);
    expect(pruned.prunedBlocks).toBe(3);
  });

  it('keeps the prompt and the current block even when they alone exceed the budget', () => {
    const messages = [system('P', true), user('old'), answer('x'), user('Q'.repeat(4000))];
    const pruned = pruneHistoryBlocks(messages, { maxTokens: 100, countTokens });
    expect(pruned.messages).toEqual([messages[0], messages[3]]);
    expect(pruned.estimatedTokens).toBeGreaterThan(100);
  });

  it('never separates a tool call from its result nor starts the conversation with an answer, whatever the budget', () => {
    const messages = conversation();
    const total = estimateTokens(messages, countTokens);
    for (let budget = 0; budget <= total; budget += 25) {
      const pruned = pruneHistoryBlocks(messages, { maxTokens: budget, countTokens });
      const check = sanitizeToolCallPairing(pruned.messages);
      expect(check.synthesizedResults).toEqual([]);
      expect(check.droppedResults).toBe(0);
      const firstAfterHead = pruned.messages.find((message) => message.role !== 'system');
      expect(firstAfterHead?.role).toBe('user');
      expect(pruned.messages[0]).toBe(messages[0]);
    }
  });

  it('prunes messages stored before the first question first', () => {
    const messages = [system('P', true), answer('greeting '.repeat(50)), user('Q1'), answer('A1'), user('Q2')];
    const total = estimateTokens(messages, countTokens);
    const pruned = pruneHistoryBlocks(messages, { maxTokens: total - 1, countTokens });
    expect(pruned.messages).toEqual([messages[0], user('Q1'), answer('A1'), user('Q2')]);
  });

  it('counts tool-call names and arguments', () => {
    expect(estimateTokens([calls('a')], countTokens)).toBeGreaterThan(estimateTokens([answer('')], countTokens) + 4);
  });
});
