import {
  assistantMessage,
  eventMessage,
  ragContext,
  systemPrompt,
  toolCall,
  toolResult,
  userMessage,
} from '../../../test/support/thread-messages';
import { ThreadMessage } from '../thread.types';
import { toLlmMessages } from './llm-history.converter';

describe(toLlmMessages.name, () => {
  it('sends the system prompt first with a cache breakpoint, and only the current question context, right before it', () => {
    const stored: ThreadMessage[] = [
      systemPrompt('PROMPT'),
      ragContext('CONTEXT 1'),
      userMessage('Q1'),
      assistantMessage('A1'),
      ragContext('CONTEXT 2'),
      userMessage('Q2'),
    ];
    expect(toLlmMessages(stored)).toEqual([
      { role: 'system', content: 'PROMPT', cacheBreakpoint: true },
      { role: 'user', content: 'Q1' },
      { role: 'assistant', content: 'A1' },
      { role: 'system', content: 'CONTEXT 2' },
      { role: 'user', content: 'Q2' },
    ]);
  });

  it('uses the context passed for the current question instead of the stored one', () => {
    const stored = [
      systemPrompt('PROMPT'),
      ragContext('OLD'),
      userMessage('Q1'),
      assistantMessage('A1'),
      userMessage('Q2'),
    ];
    const messages = toLlmMessages(stored, ragContext('FRESH'));
    expect(messages.map((message) => message.content)).toEqual(['PROMPT', 'Q1', 'A1', 'FRESH', 'Q2']);
  });

  it('does not reuse an earlier question context for a question stored without one', () => {
    const stored = [
      systemPrompt('PROMPT'),
      ragContext('C1'),
      userMessage('Q1'),
      assistantMessage('A1'),
      userMessage('Q2'),
    ];
    expect(toLlmMessages(stored).map((message) => message.content)).toEqual(['PROMPT', 'Q1', 'A1', 'Q2']);
  });

  it('finds a context stored right after its question and keeps the current tool rounds after the question', () => {
    const stored = [
      systemPrompt('PROMPT'),
      userMessage('Q1'),
      ragContext('C1'),
      assistantMessage(null, [toolCall('c1')]),
      toolResult('c1', '{"ok":true}'),
    ];
    expect(toLlmMessages(stored)).toEqual([
      { role: 'system', content: 'PROMPT', cacheBreakpoint: true },
      { role: 'system', content: 'C1' },
      { role: 'user', content: 'Q1' },
      { role: 'assistant', content: null, tool_calls: [toolCall('c1')] },
      { role: 'tool', content: '{"ok":true}', tool_call_id: 'c1', name: 'read_node_detail' },
    ]);
  });

  it('keeps the partial text of an aborted answer and leaves out one aborted before its first token', () => {
    const stored = [
      systemPrompt(),
      userMessage('Q1'),
      assistantMessage('Partial ans', undefined, true),
      userMessage('Q2'),
      assistantMessage('', undefined, true),
      userMessage('Q3'),
    ];
    expect(toLlmMessages(stored).slice(1)).toEqual([
      { role: 'user', content: 'Q1' },
      { role: 'assistant', content: 'Partial ans' },
      { role: 'user', content: 'Q2' },
      { role: 'user', content: 'Q3' },
    ]);
  });

  it('treats unmarked system messages as the prompt when first and as contexts after (threads Nodius stored)', () => {
    const legacy = (content: string): ThreadMessage => ({ ...systemPrompt(content), kind: undefined });
    const stored = [
      legacy('PROMPT'),
      legacy('C1'),
      userMessage('Q1'),
      assistantMessage('A1'),
      legacy('C2'),
      userMessage('Q2'),
    ];
    expect(toLlmMessages(stored).map((message) => [message.role, message.content])).toEqual([
      ['system', 'PROMPT'],
      ['user', 'Q1'],
      ['assistant', 'A1'],
      ['system', 'C2'],
      ['user', 'Q2'],
    ]);
  });

  it('drops a tool message that names no call and does not share tool-call objects with the stored record', () => {
    const call = toolCall('c1');
    const stored = [
      systemPrompt(),
      userMessage('Q'),
      assistantMessage('', [call]),
      { ...toolResult('x', 'r'), toolCallId: undefined },
    ];
    const messages = toLlmMessages(stored);
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant']);
    const assistant = messages[2];
    if (assistant.role !== 'assistant' || !assistant.tool_calls) throw new Error('expected an assistant tool call');
    expect(assistant.content).toBeNull();
    expect(assistant.tool_calls[0]).toEqual(call);
    expect(assistant.tool_calls[0]).not.toBe(call);
  });

  it('works on a thread without system prompt or user message', () => {
    expect(toLlmMessages([])).toEqual([]);
    expect(toLlmMessages([systemPrompt('P')], ragContext('C'))).toEqual([
      { role: 'system', content: 'P', cacheBreakpoint: true },
      { role: 'system', content: 'C' },
    ]);
  });

  describe('thread events', () => {
    const render = (summary: string) => ({
      role: 'system',
      content: `[SYSTEM] ${summary}\n  ✓ ${summary.toLowerCase()}`,
    });

    it('are [SYSTEM] system messages where they happened: DATA_ADDED after its question, ACTIONS_EXECUTED after the results', () => {
      const stored: ThreadMessage[] = [
        systemPrompt('PROMPT'),
        ragContext('CONTEXT'),
        userMessage('Q'),
        eventMessage('Loaded 3 nodes', 'DATA_ADDED'),
        assistantMessage(null, [toolCall('a', 'propose_create_node')]),
        toolResult('a', 'applied'),
        eventMessage('Created 1 node'),
        assistantMessage('Done'),
      ];
      expect(toLlmMessages(stored)).toEqual([
        { role: 'system', content: 'PROMPT', cacheBreakpoint: true },
        { role: 'system', content: 'CONTEXT' },
        { role: 'user', content: 'Q' },
        render('Loaded 3 nodes'),
        { role: 'assistant', content: null, tool_calls: [toolCall('a', 'propose_create_node')] },
        { role: 'tool', content: 'applied', tool_call_id: 'a', name: 'read_node_detail' },
        render('Created 1 node'),
        { role: 'assistant', content: 'Done' },
      ]);
    });

    it('come after the last result of their assistant message, and are left out while it still waits for one', () => {
      const open: ThreadMessage[] = [
        userMessage('Q'),
        assistantMessage(null, [toolCall('auto', 'propose_create_node'), toolCall('wait', 'propose_delete_node')]),
        toolResult('auto', 'applied'),
        eventMessage('Created 1 node'),
      ];
      expect(toLlmMessages(open).map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);

      const closed = [
        ...open,
        toolResult('wait', 'approved'),
        eventMessage('Deleted 1 node'),
        assistantMessage('Done'),
      ];
      expect(toLlmMessages(closed)).toEqual([
        { role: 'user', content: 'Q' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [toolCall('auto', 'propose_create_node'), toolCall('wait', 'propose_delete_node')],
        },
        { role: 'tool', content: 'applied', tool_call_id: 'auto', name: 'read_node_detail' },
        { role: 'tool', content: 'approved', tool_call_id: 'wait', name: 'read_node_detail' },
        render('Created 1 node'),
        render('Deleted 1 node'),
        { role: 'assistant', content: 'Done' },
      ]);
    });
  });
});
