import {
  assistantMessage,
  ragContext,
  systemPrompt,
  toolCall,
  toolResult,
  userMessage,
} from '../../../test/support/thread-messages';
import { buildLlmHistory } from './llm-history.builder';
import { MISSING_TOOL_RESULT_CONTENT } from './tool-call-pairing.sanitizer';

const countTokens = (text: string): number => Math.ceil(text.length / 4);

describe(buildLlmHistory.name, () => {
  it('converts, repairs a round interrupted by a crash and prunes an old block, in that order', () => {
    const stored = [
      systemPrompt('PROMPT'),
      ragContext('C1 '.repeat(500)),
      userMessage('Q1 '.repeat(300)),
      assistantMessage('A1'),
      ragContext('C2'),
      userMessage('Q2'),
      assistantMessage(null, [toolCall('t1'), toolCall('t2', 'search_nodes', { query: 'fetch' })]),
      toolResult('t1', '{"key":"root"}'),
    ];
    const history = buildLlmHistory({ threadId: 'ai_t', messages: stored, maxTokens: 120, countTokens });
    expect(history.messages).toEqual([
      { role: 'system', content: 'PROMPT', cacheBreakpoint: true },
      { role: 'system', content: 'C2' },
      { role: 'user', content: 'Q2' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [toolCall('t1'), toolCall('t2', 'search_nodes', { query: 'fetch' })],
      },
      { role: 'tool', tool_call_id: 't1', content: '{"key":"root"}', name: 'read_node_detail' },
      { role: 'tool', tool_call_id: 't2', content: MISSING_TOOL_RESULT_CONTENT, name: 'search_nodes' },
    ]);
    expect(history.prunedBlocks).toBe(1);
    expect(history.synthesizedResults).toEqual(['t2']);
    expect(history.estimatedTokens).toBeLessThanOrEqual(120);
  });
});
