import {
  assistantMessage,
  ragContext,
  systemPrompt,
  toolCall,
  toolResult,
  userMessage,
} from '../../../test/support/thread-messages';
import { splitConversationTurns } from './conversation-turn.splitter';
import { closedTurnEnds, measureClosedTurns } from './measured-turn';
import { buildTurnMemoryText, TURN_TEXT_MAX_CHARS, turnMemoryTextLength } from './turn-memory-text.builder';

describe(splitConversationTurns.name, () => {
  it('cuts a thread into turns of a question and everything up to the next one, leaving system messages out', () => {
    const q1 = userMessage('What does fetch-api do?');
    const q2 = userMessage('And root?');
    const turns = splitConversationTurns([
      systemPrompt(),
      ragContext('CTX'),
      q1,
      assistantMessage('Let me look.', [toolCall('c1', 'read_node_detail', { nodeKey: 'fetch-api' })]),
      toolResult('c1', '{"key":"fetch-api"}'),
      assistantMessage('It fetches the NBA API.'),
      ragContext('CTX2'),
      q2,
      assistantMessage('Root starts the flow.'),
    ]);
    expect(turns).toEqual([
      {
        turnId: q1.id,
        createdTime: q1.createdTime,
        userMessage: 'What does fetch-api do?',
        assistantTexts: ['Let me look.', 'It fetches the NBA API.'],
        tools: [{ name: 'read_node_detail', arguments: '{"nodeKey":"fetch-api"}', result: '{"key":"fetch-api"}' }],
        closed: true,
      },
      {
        turnId: q2.id,
        createdTime: q2.createdTime,
        userMessage: 'And root?',
        assistantTexts: ['Root starts the flow.'],
        tools: [],
        closed: true,
      },
    ]);
  });

  it('leaves the last turn open while it waits for an approval, runs or failed midway, and closes it with a later question', () => {
    const waiting = [userMessage('Add a node'), assistantMessage(null, [toolCall('w1', 'propose_create_node')])];
    expect(splitConversationTurns(waiting)[0].closed).toBe(false);
    expect(splitConversationTurns([userMessage('Q')])[0].closed).toBe(false);
    expect(
      splitConversationTurns([userMessage('Q'), assistantMessage(null, [toolCall('r1')]), toolResult('r1', 'x')])[0]
        .closed,
    ).toBe(false);
    const superseded = splitConversationTurns([
      ...waiting,
      toolResult('w1', '{"status":"rejected"}'),
      userMessage('Something else'),
    ]);
    expect(superseded.map((turn) => turn.closed)).toEqual([true, false]);
    expect(superseded[0].tools[0].result).toBe('{"status":"rejected"}');
  });

  it('closes a turn stopped by the user with its partial answer', () => {
    expect(splitConversationTurns([userMessage('Q'), assistantMessage('Partial', undefined, true)])[0]).toMatchObject({
      closed: true,
      assistantTexts: ['Partial'],
    });
  });
});

describe(buildTurnMemoryText.name, () => {
  const turn = {
    turnId: 't',
    createdTime: 1,
    userMessage: 'What does fetch-api do?',
    assistantTexts: ['It fetches.', 'Done.'],
    tools: [
      { name: 'read_node_detail', arguments: '{}', result: 'r'.repeat(500) },
      { name: 'search_nodes', arguments: '{}', result: null },
    ],
    closed: true,
  };

  it('writes the question, the answer and the tools with results cut to 200 characters', () => {
    expect(buildTurnMemoryText(turn)).toBe(
      [
        'User: What does fetch-api do?',
        'Assistant: It fetches.\nDone.',
        'Tools used:',
        `- read_node_detail: ${'r'.repeat(200)}`,
        '- search_nodes: ',
      ].join('\n'),
    );
  });

  it('keeps the whole text within 4,000 characters', () => {
    const long = buildTurnMemoryText({ ...turn, userMessage: 'x'.repeat(10_000) });
    expect(long).toHaveLength(TURN_TEXT_MAX_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe(turnMemoryTextLength.name, () => {
  const base = { turnId: 't', createdTime: 1, userMessage: 'Hi', assistantTexts: ['Hello.'], tools: [], closed: true };
  const cases = {
    'a plain turn': base,
    'no answer yet': { ...base, assistantTexts: [] },
    'answers in several messages': { ...base, assistantTexts: ['One.', '', 'Three.'] },
    'tools with long, short and missing results': {
      ...base,
      tools: [
        { name: 'read_node_detail', arguments: '{}', result: 'r'.repeat(500) },
        { name: 'search_nodes', arguments: '{}', result: 'é'.repeat(10) },
        { name: 'x', arguments: '{}', result: null },
      ],
    },
    'a surrogate pair cut at 200': {
      ...base,
      tools: [{ name: 'n', arguments: '{}', result: `${'a'.repeat(199)}😀😀` }],
    },
    'over 4,000 characters': { ...base, userMessage: 'x'.repeat(10_000) },
    'exactly 4,000 characters': {
      ...base,
      userMessage: 'x'.repeat(TURN_TEXT_MAX_CHARS - 'User: \nAssistant: Hello.'.length),
    },
  };

  it.each(Object.entries(cases))('is the length of the built text: %s', (_, turn) => {
    expect(turnMemoryTextLength(turn)).toBe(buildTurnMemoryText(turn).length);
  });

  it('gives measured turns ranges that add up to their texts', () => {
    const turns = Object.values(cases).map((turn, index) => ({ ...turn, turnId: `t${index}` }));
    const measured = measureClosedTurns('th', turns);
    expect(measured.map((turn) => turn.charRange[1] - turn.charRange[0])).toEqual(
      turns.map((turn) => buildTurnMemoryText(turn).length),
    );
    expect(measured.every((turn, index) => index === 0 || turn.charRange[0] === measured[index - 1].charRange[1])).toBe(
      true,
    );
    expect(closedTurnEnds(turns)).toEqual(new Map(measured.map((turn) => [turn.turn.turnId, turn.charRange[1]])));
  });
});
