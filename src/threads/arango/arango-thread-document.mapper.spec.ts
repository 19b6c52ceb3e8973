import {
  assistantMessage,
  ragContext,
  systemPrompt,
  toolCall,
  toolResult,
  userMessage,
} from '../../../test/support/thread-messages';
import { EMPTY_USAGE, PendingInterrupt, ThreadRecord } from '../thread.types';
import { ArangoThreadDocumentMapper } from './arango-thread-document.mapper';

const pending: PendingInterrupt = {
  interrupt: {
    kind: 'question',
    toolCallId: 'w1',
    questionKind: 'choice',
    question: 'Which sheet?',
    options: ['main'],
  },
  toolName: 'propose_create_node',
  remainingToolCalls: [toolCall('r1', 'search_nodes', { query: 'html' })],
  createdTime: 1_700_000_000_500,
};

describe(ArangoThreadDocumentMapper.name, () => {
  const newThread = {
    threadId: 'ai_0abc',
    workspace: 'ws',
    userId: 'alice',
    graphKey: 'nba-workflow',
    title: 'Q?',
    createdTime: 1_700_000_000_000,
  };

  it('writes a new thread in the seed document shape, keyed by its id, at revision 0', () => {
    expect(ArangoThreadDocumentMapper.toNewDocument(newThread)).toEqual({
      _key: 'ai_0abc',
      graphKey: 'nba-workflow',
      workspace: 'ws',
      userId: 'alice',
      title: 'Q?',
      type: 'chat',
      conversationHistory: [],
      pendingInterrupt: null,
      revision: 0,
      usage: EMPTY_USAGE,
      appliedOperationIds: [],
      messageCount: 0,
      createdTime: 1_700_000_000_000,
      lastUpdatedTime: 1_700_000_000_000,
    });
  });

  it('reads back exactly the record it stored: messages in order, the pending interrupt, usage, times', () => {
    const messages = [
      systemPrompt(),
      ragContext('CONTEXT'),
      userMessage('Which nodes fetch data?'),
      assistantMessage(null, [toolCall('c1', 'search_nodes', { query: 'fetch' })]),
      toolResult('c1', '[]'),
      assistantMessage('Partial', undefined, true),
    ];
    const usage = {
      promptTokens: 10,
      completionTokens: 20,
      cachedTokens: 5,
      totalTokens: 30,
      costUsd: 0.012,
      llmCalls: 2,
    };
    const record: ThreadRecord = {
      threadId: 'ai_0abc',
      workspace: 'ws',
      userId: 'alice',
      graphKey: 'nba-workflow',
      title: 'Which nodes fetch data?',
      type: 'chat',
      messages: messages.map((message) => ({ ...message, threadId: 'ai_0abc' })),
      pendingInterrupt: pending,
      revision: 3,
      usage,
      createdTime: 1,
      lastUpdatedTime: 2,
    };
    const document = {
      ...ArangoThreadDocumentMapper.toNewDocument({ ...newThread, title: record.title, createdTime: 1 }),
      conversationHistory: structuredClone(record.messages),
      pendingInterrupt: structuredClone(pending),
      revision: 3,
      usage,
      lastUpdatedTime: 2,
    };
    expect(ArangoThreadDocumentMapper.toRecord(document)).toEqual(record);
    expect(ArangoThreadDocumentMapper.toRecord(ArangoThreadDocumentMapper.toNewDocument(newThread))).toEqual({
      ...newThread,
      type: 'chat',
      messages: [],
      pendingInterrupt: null,
      revision: 0,
      usage: EMPTY_USAGE,
      lastUpdatedTime: newThread.createdTime,
    });
  });

  it('reads a thread Nodius stored in the seed shape: ids and times filled in, OpenAI fields renamed, title derived', () => {
    const seedDocument = {
      _key: 'ai_1709123456_1',
      graphKey: 'nba-workflow',
      workspace: 'default',
      userId: 'admin',
      conversationHistory: [
        { role: 'system', content: 'Tu es un assistant IA...' },
        { role: 'system', content: '[Contexte RAG pour cette question]...' },
        { role: 'user', content: 'Que fait le node fetch-api ?' },
        { role: 'assistant', content: null, tool_calls: [toolCall('t1')] },
        { role: 'tool', content: '{}', tool_call_id: 't1', name: 'read_node_detail' },
        { role: 'assistant', content: 'Le node fetch-api est de type api-call...' },
      ],
      pendingInterrupt: { toolCallId: 't9', args: {}, context: {} }, // the seed's own shape: not resumable here
      createdTime: 1709123456000,
      lastUpdatedTime: 1709123489000,
    };
    const record = ArangoThreadDocumentMapper.toRecord(seedDocument);
    expect(record).toMatchObject({
      threadId: 'ai_1709123456_1',
      title: 'Que fait le node fetch-api ?',
      revision: 0,
      usage: EMPTY_USAGE,
      pendingInterrupt: null,
      createdTime: 1709123456000,
      lastUpdatedTime: 1709123489000,
    });
    // Each message belongs to the document it is in.
    const threadId = 'ai_1709123456_1';
    expect(record.messages).toEqual([
      {
        id: 'msg_stored_0',
        role: 'system',
        kind: 'system_prompt',
        content: 'Tu es un assistant IA...',
        createdTime: 1709123456000,
        threadId,
      },
      {
        id: 'msg_stored_1',
        role: 'system',
        kind: 'rag_context',
        content: '[Contexte RAG pour cette question]...',
        createdTime: 1709123456000,
        threadId,
      },
      {
        id: 'msg_stored_2',
        role: 'user',
        content: 'Que fait le node fetch-api ?',
        createdTime: 1709123456000,
        threadId,
      },
      {
        id: 'msg_stored_3',
        role: 'assistant',
        content: null,
        toolCalls: [toolCall('t1')],
        createdTime: 1709123456000,
        threadId,
      },
      {
        id: 'msg_stored_4',
        role: 'tool',
        content: '{}',
        toolCallId: 't1',
        toolName: 'read_node_detail',
        createdTime: 1709123456000,
        threadId,
      },
      {
        id: 'msg_stored_5',
        role: 'assistant',
        content: 'Le node fetch-api est de type api-call...',
        createdTime: 1709123456000,
        threadId,
      },
    ]);
  });

  it('fills missing usage fields with 0 and ignores values that are not numbers', () => {
    expect(ArangoThreadDocumentMapper.toUsage({ promptTokens: 4, costUsd: 'x', llmCalls: null })).toEqual({
      ...EMPTY_USAGE,
      promptTokens: 4,
    });
    expect(ArangoThreadDocumentMapper.toUsage(null)).toEqual(EMPTY_USAGE);
    expect(ArangoThreadDocumentMapper.toHead({ revision: null, usage: undefined })).toEqual({
      revision: 0,
      usage: EMPTY_USAGE,
    });
  });

  it('patches only what a commit sets: an absent interrupt or title stays, null clears the interrupt', () => {
    const base = { operationId: 'op', expectedRevision: 0, append: [] };
    expect(ArangoThreadDocumentMapper.toCommitPatch(base)).toEqual({});
    expect(ArangoThreadDocumentMapper.toCommitPatch({ ...base, pendingInterrupt: null })).toEqual({
      pendingInterrupt: null,
    });
    expect(ArangoThreadDocumentMapper.toCommitPatch({ ...base, pendingInterrupt: pending, title: 'T' })).toEqual({
      pendingInterrupt: pending,
      title: 'T',
    });
  });

  it('maps a thread list row, deriving a missing title from the first question', () => {
    const row = {
      threadId: 'ai_1',
      graphKey: 'g',
      title: null,
      type: null,
      automationId: null,
      firstQuestion: '  What   does fetch-api do? ',
      createdTime: 5,
      lastUpdatedTime: null,
      messageCount: 3,
      pendingInterrupt: true,
    };
    expect(ArangoThreadDocumentMapper.toSummary(row)).toEqual({
      threadId: 'ai_1',
      graphKey: 'g',
      title: 'What does fetch-api do?',
      type: 'chat',
      createdTime: 5,
      lastUpdatedTime: 5,
      messageCount: 3,
      pendingInterrupt: true,
    });
    expect(ArangoThreadDocumentMapper.toSummary({ ...row, title: 'Kept', lastUpdatedTime: 9 })).toMatchObject({
      title: 'Kept',
      lastUpdatedTime: 9,
    });
  });

  it("keeps the type of an automation run and reads a document without a type (Nodius's own) as a chat", () => {
    const automation = ArangoThreadDocumentMapper.toNewDocument({
      ...newThread,
      type: 'automation',
      automationId: 'aut_1',
    });
    expect(ArangoThreadDocumentMapper.toRecord(automation)).toMatchObject({
      type: 'automation',
      automationId: 'aut_1',
    });
    const { type: _type, ...untyped } = ArangoThreadDocumentMapper.toNewDocument(newThread);
    expect(ArangoThreadDocumentMapper.toRecord(untyped)).toMatchObject({ type: 'chat' });
    expect(ArangoThreadDocumentMapper.toRecord(untyped)).not.toHaveProperty('automationId');
  });

  it('maps an approval queue row, and leaves out an interrupt it could not resume', () => {
    const row = {
      threadId: 'ai_2',
      type: 'automation' as const,
      automationId: 'aut_1',
      userId: 'alice',
      graphKey: 'g',
      pendingInterrupt: pending,
    };
    expect(ArangoThreadDocumentMapper.toPendingThread(row)).toEqual({
      threadId: 'ai_2',
      type: 'automation',
      automationId: 'aut_1',
      userId: 'alice',
      graphKey: 'g',
      pendingInterrupt: pending,
    });
    expect(ArangoThreadDocumentMapper.toPendingThread({ ...row, pendingInterrupt: { something: 'else' } })).toBeNull();
  });
});
