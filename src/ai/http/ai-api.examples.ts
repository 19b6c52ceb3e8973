/** Swagger examples of the /api/ai routes (docs/protocol.md §3), realistic answers on the demo graph. */

const THREAD_ID = 'ai_mhx2k3l0a9f3c1e2b4d5f6a7';

const USAGE = {
  promptTokens: 2841,
  completionTokens: 96,
  cachedTokens: 1920,
  totalTokens: 2937,
  costUsd: 0.00041,
  llmCalls: 2,
};

export const MESSAGE_RESULT_EXAMPLE = {
  threadId: THREAD_ID,
  type: 'message',
  message:
    'fetch-api calls the NBA stats API (GET https://api.nba-stats.example/v1/players, 5 s timeout). Its first output ' +
    'goes to filter-active on success; its second output sends failures to error-handler.',
  toolCalls: [
    { id: 'call_0_read', name: 'read_node_detail', arguments: '{"nodeKey":"fetch-api"}', status: 'executed' },
  ],
  usage: USAGE,
  events: [
    {
      type: 'DATA_ADDED',
      summary: 'Loaded 6 nodes and 5 edges into the context (~717 tokens)',
      results: [
        { ok: true, label: 'nodes', detail: 'fetch-api, error-handler, root, filter-active, entry-form, display-html' },
        { ok: true, label: 'edges', detail: '5' },
      ],
    },
  ],
};

/** A proposal the workspace's action policy applied without a human. */
export const AUTONOMOUS_RESULT_EXAMPLE = {
  threadId: THREAD_ID,
  type: 'message',
  message: 'I added log-errors next to fetch-api: it now receives the failed calls.',
  toolCalls: [
    {
      id: 'call_1_create',
      name: 'propose_create_node',
      arguments:
        '{"nodeKey":"log-errors","typeKey":"log-node","sheet":"0","posX":820,"posY":300,"reason":"Log the errors of fetch-api."}',
      status: 'applied',
    },
  ],
  usage: USAGE,
  events: [
    {
      type: 'DATA_ADDED',
      summary: 'Loaded 6 nodes and 5 edges into the context (~717 tokens)',
      results: [{ ok: true, label: 'edges', detail: '5' }],
    },
    {
      type: 'ACTIONS_EXECUTED',
      summary: 'Created 1 node on sheet main',
      results: [{ ok: true, label: 'create_node log-errors', detail: 'type log-node' }],
    },
  ],
};

/** The model asks the user (ask_user): answered with POST /api/ai/resume. */
export const QUESTION_RESULT_EXAMPLE = {
  threadId: THREAD_ID,
  type: 'interrupt',
  message: 'Which season should the filter keep?',
  interrupt: {
    kind: 'question',
    toolCallId: 'call_2_ask',
    questionKind: 'choice',
    question: 'Which season?',
    options: ['2023-24', '2024-25'],
  },
  toolCalls: [
    {
      id: 'call_2_ask',
      name: 'ask_user',
      arguments: '{"kind":"choice","question":"Which season?","options":["2023-24","2024-25"]}',
      status: 'asked',
    },
  ],
  usage: USAGE,
};

const PROPOSED_ACTION = {
  type: 'create_node',
  payload: { nodeKey: 'log-errors', typeKey: 'log-node', sheet: '0', posX: 820, posY: 300 },
  reason: 'Log the errors of fetch-api so failed calls can be diagnosed.',
};

export const INTERRUPT_RESULT_EXAMPLE = {
  threadId: THREAD_ID,
  type: 'interrupt',
  message: 'I can add a log node after the error output of fetch-api. Shall I?',
  interrupt: {
    kind: 'approval',
    toolCallId: 'call_1_create',
    proposedAction: PROPOSED_ACTION,
    preview: {
      instructions: [],
      nodesToCreate: [
        {
          _key: 'log-errors',
          graphKey: 'nba-workflow',
          type: 'log-node',
          sheet: '0',
          posX: 820,
          posY: 300,
          size: { width: 200, height: 100 },
          handles: { L: { position: 'separate', point: [{ id: 'L-0', type: 'in', accept: 'any' }] } },
        },
      ],
      edgesToCreate: [],
      nodeKeysToDelete: [],
      edgeKeysToDelete: [],
      sheetId: '0',
      basis: { graphRevision: '42', nodes: { 'log-errors': null }, edges: {} },
    },
  },
  toolCalls: [
    {
      id: 'call_1_create',
      name: 'propose_create_node',
      arguments:
        '{"nodeKey":"log-errors","typeKey":"log-node","sheet":"0","posX":820,"posY":300,"reason":"Log the errors of fetch-api so failed calls can be diagnosed."}',
      status: 'proposed',
    },
  ],
  usage: USAGE,
};

export const RESUMED_RESULT_EXAMPLE = {
  threadId: THREAD_ID,
  type: 'message',
  message: 'Done: log-errors is on the main sheet. Connect it to the R-1 output of fetch-api to receive the errors.',
  toolCalls: [],
  usage: { ...USAGE, promptTokens: 3120, completionTokens: 31, totalTokens: 3151, llmCalls: 1 },
  resolution: {
    toolCallId: 'call_1_create',
    status: 'approved',
    operationId: `${THREAD_ID}:call_1_create`,
    appliedBy: 'server',
    changes: INTERRUPT_RESULT_EXAMPLE.interrupt.preview,
    message: 'The user approved the proposal and it was applied to the graph.',
  },
};

export const THREADS_EXAMPLE = [
  {
    threadId: THREAD_ID,
    graphKey: 'nba-workflow',
    title: 'What does fetch-api do, and can you add a node that logs…',
    type: 'chat',
    createdTime: 1767225600000,
    lastUpdatedTime: 1767225642000,
    messageCount: 5,
    pendingInterrupt: true,
  },
];

export const THREAD_EXAMPLE = {
  threadId: THREAD_ID,
  graphKey: 'nba-workflow',
  title: 'What does fetch-api do, and can you add a node that logs…',
  type: 'chat',
  messages: [
    {
      id: 'msg_mhx2k3l0000001',
      role: 'user',
      content: 'What does fetch-api do, and can you add a node that logs its errors?',
      createdTime: 1767225600000,
    },
    {
      id: 'msg_mhx2k3l0000002',
      role: 'event',
      event: {
        type: 'DATA_ADDED',
        summary: 'Loaded 6 nodes and 5 edges into the context (~717 tokens)',
        results: [{ ok: true, label: 'edges', detail: '5' }],
      },
      content: 'Loaded 6 nodes and 5 edges into the context (~717 tokens)',
      createdTime: 1767225600000,
    },
    {
      id: 'msg_mhx2k3l0000003',
      role: 'assistant',
      content: 'Let me read it.',
      toolCalls: [{ id: 'call_0_read', name: 'read_node_detail', arguments: '{"nodeKey":"fetch-api"}' }],
      createdTime: 1767225601200,
    },
    {
      id: 'msg_mhx2k3l0000004',
      role: 'tool',
      content: '{"_key":"fetch-api","type":"api-call","sheet":"0", …}',
      toolCallId: 'call_0_read',
      createdTime: 1767225601210,
    },
    {
      id: 'msg_mhx2k3l0000005',
      role: 'assistant',
      content: 'I can add a log node after the error output of fetch-api. Shall I?',
      toolCalls: [{ id: 'call_1_create', name: 'propose_create_node', arguments: '{"nodeKey":"log-errors", …}' }],
      createdTime: 1767225603400,
    },
  ],
  pendingInterrupt: INTERRUPT_RESULT_EXAMPLE.interrupt,
  usage: { ...USAGE },
};

export const ABORTED_THREAD_MESSAGE_EXAMPLE = {
  id: 'msg_mhx2k3l0000006',
  role: 'assistant',
  content: 'fetch-api calls the NBA stats',
  createdTime: 1767225601200,
  aborted: true,
};

const EMPTY_CHANGES = {
  instructions: [],
  nodesToCreate: [],
  edgesToCreate: [],
  nodeKeysToDelete: [],
  edgeKeysToDelete: [],
};

export const CHANGES_EXAMPLE = [
  {
    operationId: `${THREAD_ID}:call_1_create`,
    messageId: 'msg_mhx2k3l0000005',
    toolCallId: 'call_1_create',
    appliedTime: 1767225610000,
    actor: { userId: 'ada', role: 'editor', via: 'approval' },
    appliedBy: 'server',
    changes: {
      ...EMPTY_CHANGES,
      nodesToCreate: [
        { _key: 'log-errors', graphKey: 'nba-workflow', type: 'log-node', sheet: '0', posX: 820, posY: 300 },
      ],
      sheetId: '0',
    },
    inverse: { ...EMPTY_CHANGES, nodeKeysToDelete: ['log-errors'], sheetId: '0' },
  },
];

export const REVERT_EXAMPLE = {
  threadId: THREAD_ID,
  operationId: `${THREAD_ID}:undo:rev_mhx2k9a1b2c3d4`,
  reverted: [`${THREAD_ID}:call_1_create`],
  refused: [],
  event: {
    type: 'ACTIONS_REVERTED',
    summary: 'Reverted 1 operation: 1 change',
    results: [{ ok: true, label: 'delete_node log-errors', detail: 'created by the assistant' }],
    operationIds: [`${THREAD_ID}:undo:rev_mhx2k9a1b2c3d4`, `${THREAD_ID}:call_1_create`],
  },
};

export const ERROR_EXAMPLES = {
  badRequest: {
    statusCode: 400,
    code: 'bad_request',
    message: 'Invalid request: color: property color should not exist',
    details: [{ field: 'color', problems: ['property color should not exist'] }],
  },
  unauthorized: { statusCode: 401, code: 'unauthorized', message: 'Token expired' },
  forbidden: { statusCode: 403, code: 'forbidden', message: 'Only editors and admins can approve or reject proposals' },
  notFound: { statusCode: 404, code: 'not_found', message: 'Thread not found' },
  threadBusy: {
    statusCode: 409,
    code: 'thread_busy',
    message: 'Another request is running on this thread',
    details: { threadId: THREAD_ID },
    retryable: true,
  },
  noPendingInterrupt: {
    statusCode: 409,
    code: 'conflict',
    message: 'No pending interrupt on this thread',
    details: { threadId: THREAD_ID },
  },
  answerNotAnOption: {
    statusCode: 400,
    code: 'bad_request',
    message: 'The answer must be one of the options of the question',
    details: { options: ['2023-24', '2024-25'] },
  },
  payloadTooLarge: { statusCode: 413, code: 'payload_too_large', message: 'message is longer than 16000 characters' },
  budgetExceeded: {
    statusCode: 402,
    code: 'budget_exceeded',
    message: 'The AI usage budget has been reached.',
    details: { kind: 'cost', limit: 50, actual: 50.02 },
  },
  upstream: {
    statusCode: 502,
    code: 'server_error',
    message: 'The AI service is temporarily unavailable. Please try again in a few moments.',
    details: { provider: 'deepseek', upstreamStatus: 503 },
    retryable: true,
  },
};
