import { AiEventLogger } from '../observability/ai-event.logger';
import { LogEntry } from '../observability/log-entry';
import { resetLogSink, setLogSink } from '../observability/logger';
import {
  convertAnthropicResponse,
  convertAnthropicUsage,
  convertMessagesToAnthropic,
  convertToolsToAnthropic,
  describeToolBlocksAsText,
} from './anthropic-message.converter';
import { LlmMessage } from '../conversation/llm-message';

describe(convertMessagesToAnthropic.name, () => {
  it('extracts the system messages into a root system joined with a blank line', () => {
    const result = convertMessagesToAnthropic([
      { role: 'system', content: 'You are a graph assistant.' },
      { role: 'system', content: 'Context: ...' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(result.system).toBe('You are a graph assistant.\n\nContext: ...');
    expect(result.messages).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('leaves system undefined rather than empty', () => {
    expect(convertMessagesToAnthropic([{ role: 'user', content: 'Hi' }]).system).toBeUndefined();
    expect(
      convertMessagesToAnthropic([
        { role: 'system', content: '  ' },
        { role: 'user', content: 'Hi' },
      ]).system,
    ).toBeUndefined();
  });

  it('puts an ephemeral cache breakpoint after the stable system prompt', () => {
    const result = convertMessagesToAnthropic([
      { role: 'system', content: 'Stable rules.' },
      { role: 'system', content: 'Stable tools doc.', cacheBreakpoint: true },
      { role: 'system', content: 'Context for this question.' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(result.system).toEqual([
      { type: 'text', text: 'Stable rules.\n\nStable tools doc.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Context for this question.' },
    ]);
  });

  it('keeps the root system to the system messages that open the list: a later one becomes text of its user turn', () => {
    const result = convertMessagesToAnthropic([
      { role: 'system', content: 'Stable rules.', cacheBreakpoint: true },
      { role: 'user', content: 'Q1' },
      { role: 'assistant', content: 'A1' },
      { role: 'system', content: 'Recalled: the token is T42.' },
      { role: 'system', content: 'Context for Q2.' },
      { role: 'user', content: 'Q2' },
    ]);
    expect(result.system).toEqual([{ type: 'text', text: 'Stable rules.', cache_control: { type: 'ephemeral' } }]);
    expect(result.messages).toEqual([
      { role: 'user', content: 'Q1' },
      { role: 'assistant', content: 'A1' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Recalled: the token is T42.' },
          { type: 'text', text: 'Context for Q2.' },
          { type: 'text', text: 'Q2' },
        ],
      },
    ]);
  });

  it('puts cache_control on the last block of a marked message, and sends at most four breakpoints: the first three and the last', () => {
    const call = {
      id: 'toolu_1',
      type: 'function' as const,
      function: { name: 'search_nodes', arguments: '{"query":"api"}' },
    };
    const result = convertMessagesToAnthropic([
      { role: 'system', content: 'Level 1', cacheBreakpoint: true },
      { role: 'system', content: 'Level 2', cacheBreakpoint: true },
      { role: 'system', content: 'Level 3', cacheBreakpoint: true },
      { role: 'user', content: 'Q1', cacheBreakpoint: true },
      { role: 'assistant', content: 'Looking.', tool_calls: [call] },
      { role: 'tool', tool_call_id: 'toolu_1', content: '[]', cacheBreakpoint: true },
      { role: 'assistant', content: 'Nothing found.', cacheBreakpoint: true },
      { role: 'user', content: 'Q2' },
    ]);
    expect(result.system).toEqual([
      { type: 'text', text: 'Level 1', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Level 2', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Level 3', cache_control: { type: 'ephemeral' } },
    ]);
    expect(result.messages).toEqual([
      { role: 'user', content: 'Q1' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'search_nodes', input: { query: 'api' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '[]' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Nothing found.', cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: 'Q2' },
    ]);
    const sent = JSON.stringify(result).match(/cache_control/g) ?? [];
    expect(sent).toHaveLength(4);
  });

  it('turns tool_calls into tool_use blocks and merges consecutive tool results into one user message', () => {
    const messages: LlmMessage[] = [
      { role: 'system', content: 'S' },
      { role: 'user', content: 'Find the API node' },
      {
        role: 'assistant',
        content: 'Searching.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'search_nodes', arguments: '{"query":"api"}' } },
          {
            id: 'toolu_2',
            type: 'function',
            function: { name: 'read_node_detail', arguments: '{"nodeKey":"fetch-api"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: '[{"key":"fetch-api"}]' },
      { role: 'tool', tool_call_id: 'toolu_2', content: '{"key":"fetch-api"}' },
      { role: 'assistant', content: 'It fetches stats.' },
      { role: 'user', content: 'Thanks' },
    ];
    const result = convertMessagesToAnthropic(messages);
    expect(result.messages).toEqual([
      { role: 'user', content: 'Find the API node' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Searching.' },
          { type: 'tool_use', id: 'toolu_1', name: 'search_nodes', input: { query: 'api' } },
          { type: 'tool_use', id: 'toolu_2', name: 'read_node_detail', input: { nodeKey: 'fetch-api' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '[{"key":"fetch-api"}]' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: '{"key":"fetch-api"}' },
        ],
      },
      { role: 'assistant', content: 'It fetches stats.' },
      { role: 'user', content: 'Thanks' },
    ]);
  });

  it('never leaves two user messages in a row: a user message after tool results joins them, results first', () => {
    const result = convertMessagesToAnthropic([
      { role: 'user', content: 'Go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 't1', type: 'function', function: { name: 'propose_create_node', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 't1', content: '{"status":"rejected"}' },
      { role: 'user', content: 'Do something else' },
      { role: 'user', content: 'and quickly' },
    ]);
    const roles = result.messages.map((message) => message.role);
    expect(roles).toEqual(['user', 'assistant', 'user']);
    expect(result.messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'propose_create_node', input: {} }],
    });
    expect(result.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: '{"status":"rejected"}' },
      { type: 'text', text: 'Do something else' },
      { type: 'text', text: 'and quickly' },
    ]);
  });

  it('drops empty assistant turns and null content', () => {
    const result = convertMessagesToAnthropic([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: null },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'b' },
    ]);
    expect(result.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ]);
  });

  it('replaces bad JSON arguments by {} and logs malformed_json', () => {
    const logs: LogEntry[] = [];
    setLogSink((entry) => logs.push(entry));
    try {
      const result = convertMessagesToAnthropic(
        [
          { role: 'user', content: 'x' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 't1', type: 'function', function: { name: 'search_nodes', arguments: '{"query": "unterminated' } },
              { id: 't2', type: 'function', function: { name: 'search_nodes', arguments: '[1,2]' } },
              { id: 't3', type: 'function', function: { name: 'search_nodes', arguments: '' } },
            ],
          },
        ],
        new AiEventLogger('test'),
      );
      expect(result.messages[1].content).toEqual([
        { type: 'tool_use', id: 't1', name: 'search_nodes', input: {} },
        { type: 'tool_use', id: 't2', name: 'search_nodes', input: {} },
        { type: 'tool_use', id: 't3', name: 'search_nodes', input: {} },
      ]);
      const malformed = logs.filter((log) => log.event === 'malformed_json');
      expect(malformed).toHaveLength(2);
      expect(malformed[0]).toMatchObject({
        context: 'anthropic_tool_use:search_nodes',
        corrected: '{}',
        rawLength: 23,
      });
      expect(malformed[0]).not.toHaveProperty('raw');
    } finally {
      resetLogSink();
    }
  });
});

describe(describeToolBlocksAsText.name, () => {
  it('writes tool_use and tool_result blocks as text, keeping every other message as it is', () => {
    const { messages } = convertMessagesToAnthropic([
      { role: 'user', content: 'What does fetch-api do?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          {
            id: 'toolu_1',
            type: 'function',
            function: { name: 'read_node_detail', arguments: '{"nodeKey":"fetch-api"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: '{"key":"fetch-api"}' },
      { role: 'tool', tool_call_id: 'toolu_unknown', content: 'orphan' },
    ]);
    expect(describeToolBlocksAsText(messages)).toEqual([
      messages[0],
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'text', text: '[tool call read_node_detail {"nodeKey":"fetch-api"}]' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: '[result of read_node_detail]\n{"key":"fetch-api"}' },
          { type: 'text', text: '[result of tool call]\norphan' },
        ],
      },
    ]);
  });
});

describe(convertToolsToAnthropic.name, () => {
  it('maps function name/description/parameters to name/description/input_schema', () => {
    expect(
      convertToolsToAnthropic([
        {
          type: 'function',
          function: {
            name: 'search_nodes',
            description: 'Search',
            parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
          },
        },
        {
          type: 'function',
          function: { name: 'read_graph_overview', description: '', parameters: { properties: {} } },
        },
      ]),
    ).toEqual([
      {
        name: 'search_nodes',
        description: 'Search',
        input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      },
      { name: 'read_graph_overview', input_schema: { type: 'object', properties: {} } },
    ]);
  });
});

describe(convertAnthropicResponse.name, () => {
  it('extracts text, tool_use blocks as OpenAI tool calls, usage with cache reads and a normalized stop reason', () => {
    const completion = convertAnthropicResponse({
      model: 'claude-sonnet-4-20250514',
      stop_reason: 'tool_use',
      content: [
        { type: 'text', text: 'Let me check. ', citations: null },
        { type: 'text', text: 'One moment.', citations: null },
        {
          type: 'tool_use',
          id: 'toolu_9',
          name: 'search_nodes',
          input: { query: 'api' },
          caller: { type: 'direct' },
        } as never,
      ],
      usage: {
        input_tokens: 20,
        output_tokens: 30,
        cache_read_input_tokens: 1000,
        cache_creation_input_tokens: 5,
      } as never,
    });
    expect(completion).toEqual({
      message: {
        role: 'assistant',
        content: 'Let me check. One moment.',
        tool_calls: [
          { id: 'toolu_9', type: 'function', function: { name: 'search_nodes', arguments: '{"query":"api"}' } },
        ],
      },
      usage: { promptTokens: 1025, completionTokens: 30, cachedTokens: 1000, totalTokens: 1055 },
      model: 'claude-sonnet-4-20250514',
      finishReason: 'tool_calls',
    });
  });

  it('counts the prompt as input + cache creation + cache read', () => {
    expect(
      convertAnthropicUsage({
        input_tokens: 11,
        output_tokens: 100,
        cache_read_input_tokens: 2055,
        cache_creation_input_tokens: 0,
      }),
    ).toEqual({
      promptTokens: 2066,
      completionTokens: 100,
      cachedTokens: 2055,
      totalTokens: 2166,
    });
  });
});
