/** The languages user-facing texts are written in (AI_LOCALE): prompts, context headers, error messages. */
export type Locale = 'en' | 'fr';

/**
 * The service's typed configuration, built once at start from validated environment variables
 * (see load-app-config.ts). Each module reads only its own section.
 */
export interface AppConfig {
  readonly env: 'development' | 'production' | 'test';
  readonly server: {
    readonly port: number;
    readonly host: string;
    readonly bodyMaxBytes: number;
    readonly graphImportMaxBytes: number;
    readonly shutdownTimeoutMs: number;
    /** HEAP_GROWING_PERCENT: the old generation grows to at most (1 + it / 100) × its live size; 0 leaves V8's factor. */
    readonly heapGrowingPercent: number;
    /** SOCKET_CORS_ORIGINS: origins allowed on the Socket.IO namespace; ['*'] any; [] same origin only. */
    readonly socketCorsOrigins: readonly string[];
  };
  readonly log: {
    readonly level: 'debug' | 'info' | 'warn' | 'error';
    /** AI_DEBUG: debug events (and message content) are logged. */
    readonly aiDebug: boolean;
  };
  readonly locale: Locale;
  /** The playground page at /playground. */
  readonly playground: {
    readonly enabled: boolean;
    /** The built page (index.html and its bundle), absolute. */
    readonly assetsDir: string;
  };
  readonly store:
    | { readonly kind: 'sqlite'; readonly dataDir: string; readonly seedDemo: boolean }
    | {
        readonly kind: 'arango';
        readonly url: string;
        readonly database: string;
        readonly user: string;
        readonly password: string | undefined;
        readonly seedDemo: boolean;
      };
  /** OpenTelemetry traces (docs/observability.md). */
  readonly tracing: {
    /** OTEL_EXPORTER_OTLP_ENDPOINT; null: no tracing. */
    readonly otlpEndpoint: string | null;
    /** OTEL_SERVICE_NAME. */
    readonly serviceName: string;
    /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT. */
    readonly captureMessageContent: boolean;
  };
  /** REDIS_URL: several instances share rooms, limits, overlay and request event logs through it. */
  readonly redisUrl: string | undefined;
  /** A request's events after a dropped connection. */
  readonly rejoin: {
    /** AI_DISCONNECT_POLICY: `abort` stops a generation whose socket disconnected; `continue` lets it run for `graceMs`. */
    readonly disconnectPolicy: 'abort' | 'continue';
    /** AI_REJOIN_GRACE_MS: how long a disconnected generation waits for a rejoin, and a finished request's events are kept. */
    readonly graceMs: number;
  };
  readonly auth: {
    readonly mode: 'jwt' | 'none';
    readonly secret: string | undefined;
    readonly publicKey: string | undefined;
    readonly issuer: string | undefined;
    readonly audience: string | undefined;
    /** Shared secret the Nodius sync server may use on the change feed instead of an admin JWT. */
    readonly syncToken: string | undefined;
  };
  readonly limits: {
    readonly rateLimitPerMinute: number;
    readonly messageMaxChars: number;
    /** GRAPH_MAX_NODES, GRAPH_MAX_EDGES: the largest graph an import may hold. */
    readonly graphMaxNodes: number;
    readonly graphMaxEdges: number;
  };
  readonly agent: {
    readonly maxToolRounds: number;
    readonly maxRetries: number;
    readonly hitlApply: 'server' | 'client';
    /** AI_CHANGE_LOG_RETENTION_DAYS: how long the change log keeps an operation (0: forever). */
    readonly changeLogRetentionDays: number;
    readonly maxTokensPerCall: number;
    readonly maxTotalTokens: number;
    readonly maxCostUsd: number;
    readonly threadCacheSize: number;
    readonly threadLeaseMs: number;
    readonly historyMaxTokens: number;
    /** AI_CONFIRM_ABOVE_TOKENS: a chat's prompt estimated above it is confirmed by the user first (0: never). */
    readonly confirmAboveTokens: number;
    /** AI_CONFIRM_ABOVE_COST_USD: the same for its estimated cost (0: never). */
    readonly confirmAboveCostUsd: number;
    /** AI_ALWAYS_SEND_MAX_TOKENS: the always-sent data's share of every prompt of its graph. */
    readonly alwaysSendMaxTokens: number;
    /** AI_MAX_TOOL_CALLS_PER_REPLY: tool calls run per model reply; the rest get an error result. */
    readonly maxToolCallsPerReply: number;
    /** AI_NO_PROGRESS_ROUNDS: tool rounds in a row bringing nothing new before the run stops calling tools. */
    readonly noProgressRounds: number;
    /** AI_ENQUEUE_MAX: messages sent with multitaskStrategy `enqueue` that may wait per thread. */
    readonly enqueueMax: number;
    /** AI_SETUP_FIRST_MAX_MS: longest a running stream gives way, per upstream call, to new conversations' setups (0: never). */
    readonly setupFirstMaxMs: number;
    /** AI_SETUP_FIRST_MIN_WAITING: runs waiting for their setup beyond which running streams give way. */
    readonly setupFirstMinWaiting: number;
    /** AI_STREAM_TURN_BUDGET_MS: time per turn of the event loop after which no more streams start relaying (0: no limit). */
    readonly streamTurnBudgetMs: number;
  };
  readonly llm: {
    readonly provider: string | undefined;
    readonly model: string | undefined;
    readonly baseUrl: string | undefined;
    readonly apiKey: string | undefined;
    /** LLM_STREAM_IDLE_TIMEOUT_MS: silence allowed between two upstream stream events. */
    readonly streamIdleTimeoutMs: number;
  };
  /** The automations' scheduler on this instance. */
  readonly automations: {
    /** AUTOMATIONS_ENABLED: this instance starts due automations. */
    readonly schedulerEnabled: boolean;
    /** AUTOMATION_POLL_MS */
    readonly pollMs: number;
    /** AUTOMATION_MAX_RUNS: runs in progress at once over every instance of the store. */
    readonly maxRuns: number;
    /** AUTOMATION_MAX_RUNS_PER_WORKSPACE */
    readonly maxRunsPerWorkspace: number;
    /** AUTOMATION_RETENTION_DAYS: runs and their threads are deleted this long after they started. */
    readonly retentionDays: number;
    /** AUTOMATION_INTERRUPT_TTL_DAYS: a run's unanswered proposal or question expires after this long. */
    readonly interruptTtlDays: number;
  };
  /**
   * AES-256-GCM keys of the provider configurations' API keys: AI_SECRETS_KEY
   * encrypts and decrypts, AI_SECRETS_KEY_PREVIOUS only decrypts (rotation). 32 bytes each; never logged.
   */
  readonly secrets: {
    readonly key: Buffer | undefined;
    readonly previousKey: Buffer | undefined;
  };
  readonly rag: {
    readonly cacheTtlMs: number;
    readonly maxNodes: number;
    readonly maxDepth: number;
    /** RAG_INDEX_WAIT_MS: how long a search waits for a large graph's index being built. */
    readonly indexWaitMs: number;
  };
  readonly embeddings: {
    readonly provider: 'local' | 'openai' | 'openai-compatible' | 'ollama' | 'none' | undefined;
    readonly model: string | undefined;
    readonly baseUrl: string | undefined;
    readonly apiKey: string | undefined;
    readonly batchSize: number;
    readonly concurrency: number;
  };
  /** Conversation memory: turn embeddings, summaries, recall, retention. */
  readonly memory: {
    readonly enabled: boolean;
    /** A level-1 summary each time this many characters of conversation (turn texts) accumulated. */
    readonly level1EveryChars: number;
    /** A level-2 summary each time this many characters of level-1 summaries accumulated. */
    readonly level2EveryChars: number;
    /** Cosine similarity a recalled record must exceed; undefined: the default for the embedding model. */
    readonly recallMinScore: number | undefined;
    /** Hits kept per level (by default 3 turns, 5 short-term, 3 long-term summaries). */
    readonly recallLimits: Readonly<Record<0 | 1 | 2, number>>;
    /** Tokens of the recalled-memory block of a request. */
    readonly recallMaxTokens: number;
    /** Tokens of the block of summaries that stands for the pruned part of the history. */
    readonly summaryMaxTokens: number;
    /** Level-1 / level-2 records older than this many days are trimmed; 0 keeps them. */
    readonly level1RetentionDays: number;
    readonly level2RetentionDays: number;
    /** Cron pattern of the retention job (croner syntax, the process's time zone). */
    readonly trimSchedule: string;
  };
  /**
   * The raw environment, frozen. Only for lookups whose names come from config/providers.json
   * (an entry's apiKeyEnvVar, its `<NAME>_BASE_URL` override); everything else uses the sections above.
   */
  readonly rawEnv: Readonly<Record<string, string | undefined>>;
}
