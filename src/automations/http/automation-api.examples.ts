/** Swagger examples of /api/ai/automations and /api/ai/approvals (docs/protocol.md §8.4). */

const USAGE = {
  promptTokens: 4210,
  completionTokens: 188,
  cachedTokens: 2816,
  totalTokens: 4398,
  costUsd: 0.00071,
  llmCalls: 2,
};

export const RUN_EXAMPLE = {
  runId: 'run_0mhx2k3l0c1d2e3f4a5b6c7d8',
  threadId: 'ai_0mhx2k3l0e1f2a3b4c5d6e7f8',
  trigger: 'schedule',
  startedTime: 1_774_854_000_000,
  finishedTime: 1_774_854_006_400,
  outcome: 'completed',
  usage: USAGE,
};

export const AUTOMATION_EXAMPLE = {
  automationId: 'aut_0mhx2k3l0a1b2c3d4e5f6a7b8',
  name: 'Weekly error review',
  graphKey: 'nba-workflow',
  prompt: 'List the nodes of {{period:-1_WEEK}} that handle errors, and propose a log node where one is missing.',
  schedule: { cron: '0 9 * * 1', timezone: 'Europe/Paris' },
  enabled: true,
  maxCostUsdPerRun: 0.5,
  maxCostUsdPerMonth: 20,
  createdBy: 'alice',
  createdTime: 1_774_600_000_000,
  updatedTime: 1_774_600_000_000,
  nextRunTime: 1_775_458_800_000,
  running: false,
  lastRun: RUN_EXAMPLE,
};

export const RUNS_EXAMPLE = [
  {
    ...RUN_EXAMPLE,
    runId: 'run_0mhx9a1b2c3d4e5f6a7b8c9d0',
    startedTime: 1_775_458_800_000,
    finishedTime: undefined,
    outcome: 'interrupted',
    threadId: 'ai_0mhx9a1b2f0e1d2c3b4a59687',
  },
  RUN_EXAMPLE,
  {
    runId: 'run_0mhwz01b2c3d4e5f6a7b8c9d0',
    threadId: null,
    trigger: 'schedule',
    startedTime: 1_774_249_200_000,
    finishedTime: 1_774_249_200_012,
    outcome: 'skipped_budget',
    usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0, totalTokens: 0, costUsd: 0, llmCalls: 0 },
    error: { code: 'budget_exceeded', message: 'The monthly budget is spent: $20.01 of $20 this month' },
  },
];

export const APPROVALS_EXAMPLE = [
  {
    threadId: 'ai_0mhx9a1b2f0e1d2c3b4a59687',
    type: 'automation',
    automationId: AUTOMATION_EXAMPLE.automationId,
    graphKey: 'nba-workflow',
    interrupt: {
      kind: 'approval',
      toolCallId: 'call_1_create',
      proposedAction: {
        type: 'create_node',
        payload: { nodeKey: 'log-errors', typeKey: 'log-node', sheet: '0', posX: 820, posY: 300 },
        reason: 'fetch-api has no log on its error output.',
      },
      preview: {
        instructions: [],
        nodesToCreate: [],
        edgesToCreate: [],
        nodeKeysToDelete: [],
        edgeKeysToDelete: [],
        sheetId: '0',
      },
    },
    createdTime: 1_775_458_806_000,
  },
];

export const AUTOMATION_ERRORS = {
  badCron: {
    statusCode: 400,
    code: 'bad_request',
    message: 'schedule.cron: "61 * * * *" is not a valid cron expression (CronPattern: Invalid value for minute: 61)',
  },
  badZone: {
    statusCode: 400,
    code: 'bad_request',
    message: 'schedule.timezone: "Mars/Phobos" is not an IANA time zone (e.g. Europe/Paris, UTC)',
  },
  badPlaceholder: {
    statusCode: 400,
    code: 'bad_request',
    message:
      'prompt: unknown placeholder {{today}} (known: {{now}}, {{lastRunTime}}, {{period:-1_WEEK}} with DAY, WEEK or MONTH, optionally .start or .end)',
  },
  forbidden: { statusCode: 403, code: 'forbidden', message: 'This action requires the role editor or admin' },
  notFound: { statusCode: 404, code: 'not_found', message: 'Automation not found' },
  graphNotFound: { statusCode: 404, code: 'not_found', message: 'Graph "billing" not found' },
  running: {
    statusCode: 409,
    code: 'conflict',
    message: 'A run of this automation is in progress',
    details: { automationId: AUTOMATION_EXAMPLE.automationId },
    retryable: true,
  },
  limited: {
    statusCode: 429,
    code: 'rate_limit',
    message:
      '2 automation run(s) of this workspace are in progress, as many as AUTOMATION_MAX_RUNS_PER_WORKSPACE allows: retry once one ends',
    details: { automationId: AUTOMATION_EXAMPLE.automationId },
    retryable: true,
  },
  tooLong: { statusCode: 413, code: 'payload_too_large', message: 'prompt is longer than 16000 characters' },
};
