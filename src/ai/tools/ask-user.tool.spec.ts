import { ASK_USER_TOOL, parseAskUserCall } from './ask-user.tool';

describe('ask_user arguments', () => {
  it('accepts a confirm question and a choice of 2 to 10 distinct options', () => {
    expect(parseAskUserCall({ kind: 'confirm', question: 'Delete fetch-api?' })).toEqual({
      ok: true,
      question: { questionKind: 'confirm', question: 'Delete fetch-api?' },
    });
    expect(parseAskUserCall({ kind: 'choice', question: 'Which season?', options: ['2023', '2024'] })).toEqual({
      ok: true,
      question: { questionKind: 'choice', question: 'Which season?', options: ['2023', '2024'] },
    });
    const ten = Array.from({ length: 10 }, (_, index) => `option ${index}`);
    expect(parseAskUserCall({ kind: 'choice', question: 'Which?', options: ten })).toMatchObject({ ok: true });
    expect(parseAskUserCall({ kind: 'choice', question: 'Which?', options: ['a', 'x'.repeat(200)] })).toMatchObject({
      ok: true,
    });
  });

  it('accepts a confirm question asked for an action (forAction), with or without its target', () => {
    expect(
      parseAskUserCall({
        kind: 'confirm',
        question: 'Delete fetch-api?',
        forAction: { kind: 'delete_node', target: 'fetch-api' },
      }),
    ).toEqual({
      ok: true,
      question: {
        questionKind: 'confirm',
        question: 'Delete fetch-api?',
        forAction: { kind: 'delete_node', target: 'fetch-api' },
      },
    });
    expect(
      parseAskUserCall({ kind: 'confirm', question: 'Delete edges?', forAction: { kind: 'delete_edge' } }),
    ).toMatchObject({
      ok: true,
    });
  });

  it.each([
    ['an unknown kind', { kind: 'text', question: 'Why?' }, 'kind must be one of "choice", "confirm"'],
    ['an unknown key', { kind: 'confirm', question: 'Ok?', default: 'yes' }, 'default is not an allowed property'],
    ['no question', { kind: 'confirm' }, 'question is required'],
    ['a blank question', { kind: 'confirm', question: '   ' }, 'question must not be blank'],
    [
      'options on a confirm',
      { kind: 'confirm', question: 'Ok?', options: ['yes', 'no'] },
      'options is only for kind "choice"',
    ],
    ['a choice without options', { kind: 'choice', question: 'Which?' }, 'options is required for kind "choice"'],
    [
      'a single option',
      { kind: 'choice', question: 'Which?', options: ['only'] },
      'options must have at least 2 item(s)',
    ],
    [
      'eleven options',
      { kind: 'choice', question: 'Which?', options: Array.from({ length: 11 }, (_, i) => `o${i}`) },
      'at most 10 item(s)',
    ],
    [
      'an option over 200 characters',
      { kind: 'choice', question: 'Which?', options: ['a', 'x'.repeat(201)] },
      'options[1] must have at most 200 characters',
    ],
    ['a repeated option', { kind: 'choice', question: 'Which?', options: ['a', 'b', 'a'] }, '"a" is given twice'],
    ['a blank option', { kind: 'choice', question: 'Which?', options: ['a', ' '] }, 'options must not be blank'],
    ['a non-string option', { kind: 'choice', question: 'Which?', options: ['a', 2] }, 'options[1] must be a string'],
    [
      'forAction on a choice',
      { kind: 'choice', question: 'Which?', options: ['a', 'b'], forAction: { kind: 'delete_node' } },
      'forAction is only for kind "confirm"',
    ],
    [
      'forAction of an unknown kind',
      { kind: 'confirm', question: 'Ok?', forAction: { kind: 'teleport_node' } },
      'forAction.kind must be one of',
    ],
    [
      'forAction with an unknown key',
      { kind: 'confirm', question: 'Ok?', forAction: { kind: 'delete_node', everything: true } },
      'everything is not an allowed property',
    ],
  ])('refuses %s with an error the model can act on', (_what, args, message) => {
    const result = parseAskUserCall(args);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toContain(message);
    expect(!result.ok && result.error).toMatch(/^Invalid arguments for ask_user: .*Call it again/);
  });

  it('describes its arguments with a schema the validator enforces', () => {
    expect(ASK_USER_TOOL.definition.function.name).toBe('ask_user');
    expect(ASK_USER_TOOL.definition.function.parameters).toMatchObject({
      required: ['kind', 'question'],
      additionalProperties: false,
    });
  });
});
