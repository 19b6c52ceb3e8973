import { ExtractiveConversationSummarizer } from './extractive-conversation.summarizer';

const turn = (text: string, toolsUsed: string[] = []) => ({ text, toolsUsed, nodesMentioned: [], keyFindings: [] });

describe(ExtractiveConversationSummarizer.name, () => {
  it('says it is extractive, quotes the first sentence of each question and answer, and calls nothing', async () => {
    const result = await new ExtractiveConversationSummarizer('en').summarize({
      workspace: 'default',
      level: 1,
      sources: [
        turn(
          'User: What does fetch-api do? I need details.\nAssistant: It fetches the NBA players. Then it retries.\nTools used:\n- read_node_detail: {"a":1}',
          ['read_node_detail'],
        ),
        turn('User: Remember that the staging token is NBA_TOKEN_42.\nAssistant: Noted.'),
      ],
    });
    expect(result.author).toBe('extractive');
    expect(result.usage).toBeNull();
    expect(result.summary.summary).toBe(
      [
        'Extractive summary (no language model is configured; sentences taken from the conversation):',
        'User: What does fetch-api do?',
        'Assistant: It fetches the NBA players.',
        'User: Remember that the staging token is NBA_TOKEN_42.',
        'Assistant: Noted.',
      ].join('\n'),
    );
    expect(result.summary.toolsUsed).toEqual(['read_node_detail']);
    expect(result.summary.nodesMentioned).toContain('fetch-api');
    expect(result.summary.keyFindings).toEqual([]);
    expect(result.summary.topics.length).toBeGreaterThan(0);
  });

  it('merges level-1 summaries without repeating their labels, in French when asked', async () => {
    const french = new ExtractiveConversationSummarizer('fr');
    const level1 = await french.summarize({
      workspace: 'default',
      level: 1,
      sources: [turn('User: Bonjour.\nAssistant: Salut.')],
    });
    const level2 = await french.summarize({
      workspace: 'default',
      level: 2,
      sources: [
        {
          text: level1.summary.summary,
          toolsUsed: ['search_nodes'],
          nodesMentioned: ['root'],
          keyFindings: ['root démarre le flux'],
        },
      ],
    });
    expect(level2.summary.summary).toBe(
      'Résumé extractif (aucun modèle de langage n’est configuré ; phrases reprises de la conversation) :\nUser: Bonjour.\nAssistant: Salut.',
    );
    expect(level2.summary).toMatchObject({ toolsUsed: ['search_nodes'], keyFindings: ['root démarre le flux'] });
    expect(level2.summary.nodesMentioned).toContain('root');
  });
});
