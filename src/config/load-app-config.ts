import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { Cron } from 'croner';
import * as path from 'node:path';
import { AppConfig } from './app-config';
import { ConfigValidationError } from './config-validation.error';
import { EnvironmentVariables } from './environment-variables';

/**
 * Variables whose value is a secret, or may carry one (a URL with a password): a problem with them is
 * described without the value, since start-up errors land in logs and CI output.
 */
const SECRET_VARIABLE = /(SECRET|TOKEN|PASSWORD|API_KEY|SECRETS_KEY|SECRETS_KEY_PREVIOUS)$|^(REDIS_URL|ARANGO_URL)$/;

export function isSecretVariable(name: string): boolean {
  return SECRET_VARIABLE.test(name);
}

function describeErrors(errors: ValidationError[]): string[] {
  return errors.map((error) => {
    const reasons = Object.values(error.constraints ?? {}).join('; ');
    if (isSecretVariable(error.property)) return `${error.property}: ${reasons} (value not shown: it is a secret)`;
    return `${error.property}: ${reasons} (got ${JSON.stringify(error.value)})`;
  });
}

const SECRETS_KEY_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The 32-byte key a base64 AI_SECRETS_KEY encodes; undefined when absent or not exactly that. */
function decodeSecretsKey(value: string | undefined): Buffer | undefined {
  const text = value?.trim();
  if (!text || !BASE64.test(text) || text.length % 4 !== 0) return undefined;
  const key = Buffer.from(text, 'base64');
  return key.length === SECRETS_KEY_BYTES ? key : undefined;
}

/** Rules that involve several variables at once. */
function crossFieldProblems(vars: EnvironmentVariables, authMode: 'jwt' | 'none'): string[] {
  const problems: string[] = [];
  if (authMode === 'none' && vars.NODE_ENV === 'production') {
    problems.push('AUTH_MODE: "none" is for development only and is refused when NODE_ENV=production');
  }
  if (authMode === 'jwt' && !vars.JWT_SECRET && !vars.JWT_PUBLIC_KEY) {
    problems.push('JWT_SECRET: AUTH_MODE=jwt needs JWT_SECRET (HS256) or JWT_PUBLIC_KEY (RS256/ES256)');
  }
  if (vars.STORE === 'arango' && !vars.ARANGO_URL) {
    problems.push('ARANGO_URL: required when STORE=arango');
  }
  if (vars.LLM_PROVIDER === 'openai-compatible' && !vars.LLM_BASE_URL) {
    problems.push('LLM_BASE_URL: required when LLM_PROVIDER=openai-compatible');
  }
  if (vars.EMBEDDING_PROVIDER === 'openai-compatible' && !vars.EMBEDDING_BASE_URL) {
    problems.push('EMBEDDING_BASE_URL: required when EMBEDDING_PROVIDER=openai-compatible');
  }
  const schedule = cronProblem(vars.MEMORY_TRIM_SCHEDULE);
  if (schedule) problems.push(`MEMORY_TRIM_SCHEDULE: ${schedule}`);
  for (const name of ['AI_SECRETS_KEY', 'AI_SECRETS_KEY_PREVIOUS'] as const) {
    if (vars[name] !== undefined && !decodeSecretsKey(vars[name])) {
      // Never the value: it is a secret (a near miss still is).
      problems.push(
        `${name}: must be 32 random bytes encoded in base64, as \`openssl rand -base64 32\` prints (44 characters)`,
      );
    }
  }
  if (vars.AI_SECRETS_KEY_PREVIOUS !== undefined && vars.AI_SECRETS_KEY === undefined) {
    problems.push('AI_SECRETS_KEY_PREVIOUS: only read beside AI_SECRETS_KEY (the key that replaces it)');
  }
  return problems;
}

/** Why a cron pattern is refused (croner parses it as the retention job will), or null when it is valid. */
function cronProblem(pattern: string): string | null {
  try {
    new Cron(pattern, { paused: true }).stop();
    return null;
  } catch (error) {
    return `not a valid cron pattern (${error instanceof Error ? error.message : String(error)})`;
  }
}

/**
 * Validates the environment and builds the typed configuration.
 * Throws ConfigValidationError naming every bad variable; main.ts prints it and exits non-zero.
 */
export function loadAppConfig(env: Record<string, string | undefined>): AppConfig {
  const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
  const vars = plainToInstance(EnvironmentVariables, defined, { exposeDefaultValues: true });
  const errors = validateSync(vars, { skipMissingProperties: false });
  // AUTH_MODE defaults to "none" in development and test so the quick start runs as is, and to "jwt" in production.
  const authMode = vars.AUTH_MODE ?? (vars.NODE_ENV === 'production' ? 'jwt' : 'none');
  const problems = [...describeErrors(errors), ...(errors.length === 0 ? crossFieldProblems(vars, authMode) : [])];
  if (problems.length > 0) throw new ConfigValidationError(problems);

  const seedDemo = vars.SEED_DEMO;
  return Object.freeze({
    env: vars.NODE_ENV,
    server: {
      port: vars.PORT,
      host: vars.HOST,
      bodyMaxBytes: vars.BODY_MAX_BYTES,
      graphImportMaxBytes: vars.GRAPH_IMPORT_MAX_BYTES,
      shutdownTimeoutMs: vars.SHUTDOWN_TIMEOUT_MS,
      heapGrowingPercent: vars.HEAP_GROWING_PERCENT,
      socketCorsOrigins: (vars.SOCKET_CORS_ORIGINS ?? '')
        .split(',')
        .map((origin) => origin.trim())
        .filter((origin) => origin.length > 0),
    },
    log: { level: vars.LOG_LEVEL, aiDebug: vars.AI_DEBUG },
    locale: vars.AI_LOCALE,
    // A page that chats as its visitor: opt-in in production.
    playground: {
      enabled: vars.PLAYGROUND_ENABLED ?? vars.NODE_ENV !== 'production',
      assetsDir: path.resolve(vars.PLAYGROUND_DIR),
    },
    store:
      vars.STORE === 'arango'
        ? {
            kind: 'arango' as const,
            url: vars.ARANGO_URL as string,
            database: vars.ARANGO_DB,
            user: vars.ARANGO_USER,
            password: vars.ARANGO_PASSWORD,
            seedDemo,
          }
        : { kind: 'sqlite' as const, dataDir: path.resolve(vars.DATA_DIR), seedDemo },
    tracing: {
      otlpEndpoint: vars.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
      serviceName: vars.OTEL_SERVICE_NAME,
      captureMessageContent: vars.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT,
    },
    redisUrl: vars.REDIS_URL,
    rejoin: { disconnectPolicy: vars.AI_DISCONNECT_POLICY, graceMs: vars.AI_REJOIN_GRACE_MS },
    auth: {
      mode: authMode,
      secret: vars.JWT_SECRET,
      publicKey: vars.JWT_PUBLIC_KEY?.replace(/\\n/g, '\n'),
      issuer: vars.JWT_ISSUER,
      audience: vars.JWT_AUDIENCE,
      syncToken: vars.SYNC_TOKEN,
    },
    limits: {
      rateLimitPerMinute: vars.RATE_LIMIT_PER_MINUTE,
      messageMaxChars: vars.MESSAGE_MAX_CHARS,
      graphMaxNodes: vars.GRAPH_MAX_NODES,
      graphMaxEdges: vars.GRAPH_MAX_EDGES,
    },
    agent: {
      maxToolRounds: vars.AI_MAX_TOOL_ROUNDS,
      maxRetries: vars.AI_MAX_RETRIES,
      // The embedded store belongs to this service, so approved actions are applied here by default;
      // ArangoDB graphs belong to Nodius, whose sync pipeline applies them.
      hitlApply: vars.HITL_APPLY ?? (vars.STORE === 'sqlite' ? 'server' : 'client'),
      changeLogRetentionDays: vars.AI_CHANGE_LOG_RETENTION_DAYS,
      maxTokensPerCall: vars.AI_MAX_TOKENS_PER_CALL,
      maxTotalTokens: vars.AI_MAX_TOTAL_TOKENS,
      maxCostUsd: vars.AI_MAX_COST_USD,
      threadCacheSize: vars.THREAD_CACHE_SIZE,
      threadLeaseMs: vars.THREAD_LEASE_MS,
      historyMaxTokens: vars.AI_HISTORY_MAX_TOKENS,
      confirmAboveTokens: vars.AI_CONFIRM_ABOVE_TOKENS,
      confirmAboveCostUsd: vars.AI_CONFIRM_ABOVE_COST_USD,
      alwaysSendMaxTokens: vars.AI_ALWAYS_SEND_MAX_TOKENS,
      maxToolCallsPerReply: vars.AI_MAX_TOOL_CALLS_PER_REPLY,
      noProgressRounds: vars.AI_NO_PROGRESS_ROUNDS,
      enqueueMax: vars.AI_ENQUEUE_MAX,
      setupFirstMaxMs: vars.AI_SETUP_FIRST_MAX_MS,
      setupFirstMinWaiting: vars.AI_SETUP_FIRST_MIN_WAITING,
      streamTurnBudgetMs: vars.AI_STREAM_TURN_BUDGET_MS,
    },
    llm: {
      provider: vars.LLM_PROVIDER,
      model: vars.LLM_MODEL,
      baseUrl: vars.LLM_BASE_URL,
      apiKey: vars.LLM_API_KEY,
      streamIdleTimeoutMs: vars.LLM_STREAM_IDLE_TIMEOUT_MS,
    },
    automations: {
      schedulerEnabled: vars.AUTOMATIONS_ENABLED,
      pollMs: vars.AUTOMATION_POLL_MS,
      maxRuns: vars.AUTOMATION_MAX_RUNS,
      maxRunsPerWorkspace: vars.AUTOMATION_MAX_RUNS_PER_WORKSPACE,
      retentionDays: vars.AUTOMATION_RETENTION_DAYS,
      interruptTtlDays: vars.AUTOMATION_INTERRUPT_TTL_DAYS,
    },
    secrets: {
      key: decodeSecretsKey(vars.AI_SECRETS_KEY),
      previousKey: decodeSecretsKey(vars.AI_SECRETS_KEY_PREVIOUS),
    },
    rag: {
      cacheTtlMs: vars.RAG_CACHE_TTL_MS,
      maxNodes: vars.RAG_MAX_NODES,
      maxDepth: vars.RAG_MAX_DEPTH,
      indexWaitMs: vars.RAG_INDEX_WAIT_MS,
    },
    embeddings: {
      provider: vars.EMBEDDING_PROVIDER,
      model: vars.EMBEDDING_MODEL,
      baseUrl: vars.EMBEDDING_BASE_URL,
      apiKey: vars.EMBEDDING_API_KEY,
      batchSize: vars.EMBEDDING_BATCH_SIZE,
      concurrency: vars.EMBEDDING_CONCURRENCY,
    },
    memory: {
      enabled: vars.MEMORY_ENABLED,
      level1EveryChars: vars.MEMORY_L1_EVERY_CHARS,
      level2EveryChars: vars.MEMORY_L2_EVERY_CHARS,
      recallMinScore: vars.MEMORY_RECALL_MIN_SCORE,
      recallLimits: { 0: vars.MEMORY_RECALL_L0_LIMIT, 1: vars.MEMORY_RECALL_L1_LIMIT, 2: vars.MEMORY_RECALL_L2_LIMIT },
      recallMaxTokens: vars.MEMORY_RECALL_MAX_TOKENS,
      summaryMaxTokens: vars.MEMORY_SUMMARY_MAX_TOKENS,
      level1RetentionDays: vars.MEMORY_L1_RETENTION_DAYS,
      level2RetentionDays: vars.MEMORY_L2_RETENTION_DAYS,
      trimSchedule: vars.MEMORY_TRIM_SCHEDULE,
    },
    rawEnv: Object.freeze({ ...env }),
  });
}
