import { parseConversationSummary, SummaryOutputError } from './conversation-summary.schema';

const valid = {
  summary: ' The user asked about fetch-api. ',
  nodesMentioned: ['fetch-api', 'fetch-api', ' root '],
  keyFindings: [],
  toolsUsed: ['search_nodes'],
  topics: ['api'],
};

describe(parseConversationSummary.name, () => {
  it('accepts a summary with the five fields, trimmed and without repeats', () => {
    expect(parseConversationSummary(valid)).toEqual({
      summary: 'The user asked about fetch-api.',
      nodesMentioned: ['fetch-api', 'root'],
      keyFindings: [],
      toolsUsed: ['search_nodes'],
      topics: ['api'],
    });
  });

  it.each([
    ['a missing field', { ...valid, topics: undefined }, /must have required property 'topics'/],
    ['an unknown field', { ...valid, mood: 'happy' }, /must NOT have additional properties/],
    ['a wrong type', { ...valid, keyFindings: 'none' }, /\/keyFindings must be array/],
    ['an empty summary', { ...valid, summary: '' }, /\/summary must NOT have fewer than 1 characters/],
    ['a novel', { ...valid, summary: 'x'.repeat(4001) }, /\/summary must NOT have more than 4000 characters/],
    [
      'too many nodes',
      { ...valid, nodesMentioned: Array.from({ length: 51 }, (_, index) => `n${index}`) },
      /must NOT have more than 50 items/,
    ],
    ['not an object', ['summary'], /must be object/],
  ])('refuses %s', (_label, value, problem) => {
    expect(() => parseConversationSummary(value)).toThrow(SummaryOutputError);
    expect(() => parseConversationSummary(value)).toThrow(problem);
  });
});
