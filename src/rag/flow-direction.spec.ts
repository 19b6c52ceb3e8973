import { askedFlowDirection } from './flow-direction';

describe(askedFlowDirection.name, () => {
  it.each([
    ['What happens right after the webhook receives a call?', 'downstream'],
    ['Which nodes follow the Suitable Posts check?', 'downstream'],
    ['What does the sub route switch lead to?', 'downstream'],
    ["Que se passe-t-il juste après la réponse de l'agent ?", 'downstream'],
    ['Quel nœud suit le filtre ?', 'downstream'],
    ['Which prompt nodes does Check Platform route to?', 'downstream'],
    ['What branches leave the Compare node?', 'downstream'],
    ['What is answered when the token is wrong?', 'downstream'],
    ['What is sent back when the date is in the past?', 'downstream'],
    ['Which nodes feed the Qdrant store?', 'upstream'],
    ['Which models and tools are wired to the agent?', 'upstream'],
    ['What runs before the e-mail is sent?', 'upstream'],
    ['Quels nœuds alimentent la base vectorielle ?', 'upstream'],
    ["Qu'est-ce qui précède l'envoi ?", 'upstream'],
    ['Which tools are plugged into the extractor agent?', 'upstream'],
    ["Quels modèles sont branchés sur l'agent ?", 'upstream'],
  ])('%s → %s', (question, expected) => {
    expect(askedFlowDirection(question)).toBe(expected);
  });

  it('is null for a question about neither side, or both', () => {
    expect(askedFlowDirection('Which nodes use Slack?')).toBeNull();
    expect(askedFlowDirection('What runs before and after the filter?')).toBeNull();
  });

  it('matches whole words only, accents included', () => {
    // "thenable", "leader", "inputted" and "avantage" hold the words but are not them.
    expect(askedFlowDirection('the thenable leader')).toBeNull();
    expect(askedFlowDirection('un avantage inputted')).toBeNull();
    expect(askedFlowDirection('Quelles sont les entrées du nœud ?')).toBe('upstream');
  });
});
