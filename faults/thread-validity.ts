/**
 * What a client reads of a thread (GET /api/ai/thread/:threadId, PROTOCOL.md §3), as far as the
 * fault checks need it. Roles other than user / assistant / tool (thread events) are ignored.
 */
export interface ThreadViewForCheck {
  messages: Array<{
    role: string;
    content: string;
    toolCalls?: Array<{ id: string; name: string }>;
    toolCallId?: string;
  }>;
  pendingInterrupt: { toolCallId: string } | null;
}

/**
 * Why a thread is not valid, or [] when it is:
 *  - every assistant tool call has exactly one tool result, after it; only the calls of the last
 *    assistant message from the pending interrupt's call on may still wait (they run on resume);
 *  - no tool result without its call;
 *  - no duplicated round: tool call ids are unique, and no assistant message repeats the one before it;
 *  - each of `userMessages` (what the client sent and got an ai:thread for) is there exactly once.
 */
export function threadProblems(thread: ThreadViewForCheck, userMessages: readonly string[] = []): string[] {
  const problems: string[] = [];
  const messages = thread.messages.filter(
    (message) => message.role === 'user' || message.role === 'assistant' || message.role === 'tool',
  );
  const callIndex = new Map<string, number>();
  const resultsOf = new Map<string, number>();
  let lastCalls: string[] = [];
  let previousAssistant: string | null = null;
  messages.forEach((message, index) => {
    if (message.role === 'assistant') {
      const signature = JSON.stringify([message.content, message.toolCalls?.map((call) => [call.id, call.name])]);
      if (signature === previousAssistant && message.toolCalls?.length)
        problems.push(`message ${index}: the round before it is repeated`);
      previousAssistant = signature;
      lastCalls = [];
      for (const call of message.toolCalls ?? []) {
        if (callIndex.has(call.id))
          problems.push(`message ${index}: tool call id ${call.id} used twice (a duplicated round)`);
        callIndex.set(call.id, index);
        lastCalls.push(call.id);
      }
      return;
    }
    if (message.role === 'user') previousAssistant = null;
    if (message.role !== 'tool') return;
    const id = message.toolCallId ?? '';
    if (!callIndex.has(id)) problems.push(`message ${index}: tool result for an unknown call ${id || '(none)'}`);
    resultsOf.set(id, (resultsOf.get(id) ?? 0) + 1);
  });
  const pendingFrom = thread.pendingInterrupt ? lastCalls.indexOf(thread.pendingInterrupt.toolCallId) : -1;
  if (thread.pendingInterrupt && pendingFrom < 0)
    problems.push(`the pending interrupt's call ${thread.pendingInterrupt.toolCallId} is not in the last round`);
  const mayWait = new Set(pendingFrom >= 0 ? lastCalls.slice(pendingFrom) : []);
  for (const id of callIndex.keys()) {
    const results = resultsOf.get(id) ?? 0;
    if (results > 1) problems.push(`tool call ${id} has ${results} results`);
    if (results === 0 && !mayWait.has(id)) problems.push(`tool call ${id} has no result`);
  }
  for (const text of userMessages) {
    const count = messages.filter((message) => message.role === 'user' && message.content === text).length;
    if (count !== 1) problems.push(`the user message ${JSON.stringify(text.slice(0, 40))} is there ${count} times`);
  }
  return problems;
}
