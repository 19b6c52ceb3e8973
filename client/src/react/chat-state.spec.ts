import type { ThreadView } from '../protocol';
import { chatReducer, initialChatState, messagesOfThread } from './chat-state';

const usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0, totalTokens: 0, costUsd: 0, llmCalls: 0 };

describe(messagesOfThread.name, () => {
  it('shows a stored thread as it streamed: tool results on their badges, rounds of one answer together, the pending interrupt on the last answer', () => {
    const interrupt = {
      kind: 'question' as const,
      toolCallId: 'q1',
      questionKind: 'confirm' as const,
      question: 'Go on?',
    };
    const thread: ThreadView = {
      threadId: 'ai_t',
      graphKey: 'nba-workflow',
      title: 'What does fetch-api do?',
      type: 'chat',
      usage,
      pendingInterrupt: interrupt,
      messages: [
        { id: 'm1', role: 'user', content: 'What does fetch-api do?', createdTime: 1 },
        {
          id: 'm2b',
          role: 'assistant',
          content: 'Let me look.',
          toolCalls: [{ id: 'c1', name: 'read_node_detail', arguments: '{}' }],
          createdTime: 2,
        },
        { id: 'm2', role: 'tool', content: '{"_key":"fetch-api"}', toolCallId: 'c1', createdTime: 3 },
        { id: 'm3', role: 'assistant', content: 'It calls the API.', createdTime: 4 },
        { id: 'm4', role: 'user', content: 'Remove the note', createdTime: 5 },
        { id: 'm5', role: 'assistant', content: 'Partial', createdTime: 6, aborted: true },
      ],
    };
    const messages = messagesOfThread(thread);
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'What does fetch-api do?'],
      ['assistant', 'Let me look.\n\nIt calls the API.'],
      ['user', 'Remove the note'],
      ['assistant', 'Partial'],
    ]);
    expect(messages[1].toolCalls).toEqual([
      { toolCallId: 'c1', toolName: 'read_node_detail', status: 'done', result: '{"_key":"fetch-api"}' },
    ]);
    expect(messages[3]).toMatchObject({ aborted: true, interrupt });
    expect(chatReducer(initialChatState, { type: 'loaded', thread }).threadId).toBe('ai_t');
  });
});
