import { threadProblems, ThreadViewForCheck } from './thread-validity';

const user = (content: string) => ({ role: 'user', content });
const assistant = (content: string, ...ids: string[]) => ({
  role: 'assistant',
  content,
  toolCalls: ids.map((id) => ({ id, name: 'read_node_detail' })),
});
const tool = (toolCallId: string) => ({ role: 'tool', content: '{}', toolCallId });
const thread = (messages: ThreadViewForCheck['messages'], pending: string | null = null): ThreadViewForCheck => ({
  messages,
  pendingInterrupt: pending ? { toolCallId: pending } : null,
});

describe(threadProblems.name, () => {
  it('accepts a complete thread, and calls waiting on the pending interrupt', () => {
    expect(
      threadProblems(thread([user('q'), assistant('', 'a', 'b'), tool('a'), tool('b'), assistant('done')]), ['q']),
    ).toEqual([]);
    expect(threadProblems(thread([user('q'), assistant('', 'a', 'p', 'c'), tool('a')], 'p'))).toEqual([]);
    expect(threadProblems(thread([user('q'), user('again'), assistant('answer')]), ['q', 'again'])).toEqual([]);
  });

  it('finds a call without its result, a result without its call, a repeated round and a lost or doubled user message', () => {
    expect(threadProblems(thread([user('q'), assistant('', 'a'), user('next')]))).toEqual([
      'tool call a has no result',
    ]);
    expect(threadProblems(thread([user('q'), tool('ghost')]))).toEqual([
      'message 1: tool result for an unknown call ghost',
    ]);
    expect(threadProblems(thread([user('q'), assistant('x', 'a'), tool('a'), assistant('x', 'a'), tool('a')]))).toEqual(
      [
        'message 3: the round before it is repeated',
        'message 3: tool call id a used twice (a duplicated round)',
        'tool call a has 2 results',
      ],
    );
    expect(threadProblems(thread([user('q')]), ['lost'])).toEqual(['the user message "lost" is there 0 times']);
    expect(threadProblems(thread([user('q'), user('q')]), ['q'])).toEqual(['the user message "q" is there 2 times']);
  });
});
