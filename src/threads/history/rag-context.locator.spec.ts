import { assistantMessage, ragContext, systemPrompt, userMessage } from '../../../test/support/thread-messages';
import { ThreadMessage } from '../thread.types';
import { currentContextIndex, isSystemPrompt, withoutSupersededContexts } from './rag-context.locator';

describe(withoutSupersededContexts.name, () => {
  it('keeps the prompt and the current question context, drops earlier contexts', () => {
    const messages = [
      systemPrompt('P'),
      ragContext('C1'),
      userMessage('Q1'),
      assistantMessage('A1'),
      ragContext('C2'),
      userMessage('Q2'),
    ];
    expect(withoutSupersededContexts(messages).map((message) => message.content)).toEqual([
      'P',
      'Q1',
      'A1',
      'C2',
      'Q2',
    ]);
    expect(currentContextIndex(messages)).toBe(4);
  });

  it('handles contexts stored after their question, and keeps one committed ahead of its question', () => {
    const after = [
      systemPrompt('P'),
      userMessage('Q1'),
      ragContext('C1'),
      assistantMessage('A1'),
      userMessage('Q2'),
      ragContext('C2'),
    ];
    expect(withoutSupersededContexts(after).map((message) => message.content)).toEqual(['P', 'Q1', 'A1', 'Q2', 'C2']);
    const ahead = [systemPrompt('P'), ragContext('C1'), userMessage('Q1'), assistantMessage('A1'), ragContext('C2')];
    expect(withoutSupersededContexts(ahead).map((message) => message.content)).toEqual(['P', 'C1', 'Q1', 'A1', 'C2']);
  });

  it('recognises unmarked system messages: the first is the prompt, later ones are contexts', () => {
    const legacy = (content: string): ThreadMessage => ({ ...systemPrompt(content), kind: undefined });
    const messages = [
      legacy('P'),
      legacy('C1'),
      userMessage('Q1'),
      assistantMessage('A1'),
      legacy('C2'),
      userMessage('Q2'),
    ];
    expect(isSystemPrompt(messages[0], 0)).toBe(true);
    expect(isSystemPrompt(messages[1], 1)).toBe(false);
    expect(withoutSupersededContexts(messages).map((message) => message.content)).toEqual([
      'P',
      'Q1',
      'A1',
      'C2',
      'Q2',
    ]);
    expect(currentContextIndex([userMessage('Q')])).toBe(-1);
  });
});
