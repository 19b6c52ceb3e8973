import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, IsUrl, Max, Min, MinLength } from 'class-validator';
import type { Locale } from './app-config';

/** "true"/"1"/"yes" → true, "false"/"0"/"no"/"" → false; anything else is left as is so validation names it. */
function toBoolean({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string') return value;
  const normalized = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(normalized)) return true;
  if (['false', '0', 'no', 'off', ''].includes(normalized)) return false;
  return value;
}

function toNumber({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string' || value.trim() === '') return value;
  const parsed = Number(value);
  return Number.isNaN(parsed) ? value : parsed;
}

const urlOptions = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/**
 * Every environment variable the service reads, with its default and its rule.
 * Validated once at start (loadAppConfig); nothing outside src/config reads process.env.
 * Provider API keys and per-provider base URLs are looked up by name from the registry, so they are not listed here.
 */
export class EnvironmentVariables {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  @IsIn(['debug', 'info', 'warn', 'error'])
  LOG_LEVEL: 'debug' | 'info' | 'warn' | 'error' = 'info';

  @Transform(toBoolean)
  @IsBoolean()
  AI_DEBUG = false;

  @IsIn(['en', 'fr'])
  AI_LOCALE: Locale = 'en';

  // Store
  @IsIn(['sqlite', 'arango'])
  STORE: 'sqlite' | 'arango' = 'sqlite';

  @IsString()
  @MinLength(1)
  DATA_DIR = './data';

  @Transform(toBoolean)
  @IsBoolean()
  SEED_DEMO = true;

  @IsOptional()
  @IsUrl(urlOptions)
  ARANGO_URL?: string;

  @IsString()
  ARANGO_DB = 'nodius';

  @IsString()
  ARANGO_USER = 'root';

  @IsOptional()
  @IsString()
  ARANGO_PASSWORD?: string;

  /** OTLP/HTTP collector base URL: traces go to <it>/v1/traces; unset: no tracing at all. */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @IsString()
  @MinLength(1)
  OTEL_SERVICE_NAME = 'graph-ai-assistant';

  /** Prompts, answers and tool payloads recorded in the spans (personal data: off unless opted in). */
  @Transform(toBoolean)
  @IsBoolean()
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = false;

  /** Redis for several instances: redis://[user:password@]host:port[/db], or rediss:// for TLS. */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['redis', 'rediss'] })
  REDIS_URL?: string;

  /** What a socket disconnect does to its running generations. */
  @IsIn(['abort', 'continue'])
  AI_DISCONNECT_POLICY: 'abort' | 'continue' = 'abort';

  /** How long a disconnected generation waits for a rejoin (continue), and how long a finished request can still be rejoined. */
  @Transform(toNumber)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  AI_REJOIN_GRACE_MS = 60000;

  // Auth
  @IsOptional()
  @IsIn(['jwt', 'none'])
  AUTH_MODE?: 'jwt' | 'none';

  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'JWT_SECRET must be at least 16 characters' })
  JWT_SECRET?: string;

  @IsOptional()
  @IsString()
  JWT_PUBLIC_KEY?: string;

  @IsOptional()
  @IsString()
  JWT_ISSUER?: string;

  @IsOptional()
  @IsString()
  JWT_AUDIENCE?: string;

  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'SYNC_TOKEN must be at least 16 characters' })
  SYNC_TOKEN?: string;

  // Limits
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_MINUTE = 60;

  @Transform(toNumber)
  @IsInt()
  @Min(1024)
  BODY_MAX_BYTES = 64 * 1024;

  @Transform(toNumber)
  @IsInt()
  @Min(1024)
  GRAPH_IMPORT_MAX_BYTES = 5 * 1024 * 1024;

  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(100000)
  MESSAGE_MAX_CHARS = 16000;

  /** Most nodes one graph import may hold (413 beyond). */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  GRAPH_MAX_NODES = 50000;

  @Transform(toNumber)
  @IsInt()
  @Min(1)
  GRAPH_MAX_EDGES = 100000;

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  SHUTDOWN_TIMEOUT_MS = 10000;

  /** How far the V8 heap may grow past its live size, in percent (0: V8's own factor); src/config/heap-growth.ts. */
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(300)
  HEAP_GROWING_PERCENT = 35;

  /** Origins allowed to open the Socket.IO namespace from a browser page (comma-separated, or "*"); unset: same origin only. */
  @IsOptional()
  @IsString()
  SOCKET_CORS_ORIGINS?: string;

  /** Serve the playground page at /playground; unset: on outside production, off with NODE_ENV=production. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  PLAYGROUND_ENABLED?: boolean;

  /** Where the built playground page is (npm run build writes it there). */
  @IsString()
  @MinLength(1)
  PLAYGROUND_DIR = './dist/playground';

  // Agent
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(50)
  AI_MAX_TOOL_ROUNDS = 5;

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(10)
  AI_MAX_RETRIES = 2;

  @IsOptional()
  @IsIn(['server', 'client'])
  HITL_APPLY?: 'server' | 'client';

  /** Days the change log keeps an operation (undo needs it); 0 keeps them all. */
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(36_500)
  AI_CHANGE_LOG_RETENTION_DAYS = 90;

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  AI_MAX_TOKENS_PER_CALL = 0;

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  AI_MAX_TOTAL_TOKENS = 0;

  @Transform(toNumber)
  @IsNumber()
  @Min(0)
  AI_MAX_COST_USD = 0;

  @Transform(toNumber)
  @IsInt()
  @Min(1)
  THREAD_CACHE_SIZE = 500;

  @Transform(toNumber)
  @IsInt()
  @Min(1000)
  THREAD_LEASE_MS = 120000;

  @Transform(toNumber)
  @IsInt()
  @Min(1000)
  AI_HISTORY_MAX_TOKENS = 24000;

  /**
   * A chat whose assembled prompt is estimated above this many tokens asks the user to confirm before it is sent; an
   * automation in that case is skipped (skipped_too_large). 0: never.
   */
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  AI_CONFIRM_ABOVE_TOKENS = 32000;

  /** The same, for the estimated cost of the prompt's first upstream call in USD (input tokens only). 0: never. */
  @Transform(toNumber)
  @IsNumber()
  @Min(0)
  AI_CONFIRM_ABOVE_COST_USD = 0;

  /** The share of every prompt of a graph its always-sent data may take, in tokens (PUT over it: 400). */
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  AI_ALWAYS_SEND_MAX_TOKENS = 4000;

  /** Tool calls run per model reply; the calls beyond get an error result. */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(100)
  AI_MAX_TOOL_CALLS_PER_REPLY = 10;

  /** Tool rounds in a row that bring nothing new before the run stops calling tools (smart stopping). */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(50)
  AI_NO_PROGRESS_ROUNDS = 3;

  /** Messages sent with multitaskStrategy `enqueue` that may wait per thread; one more is refused (429 rate_limited). */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(100)
  AI_ENQUEUE_MAX = 10;

  /**
   * Longest a running stream gives way, per upstream call, to new conversations waiting for their setup;
   * 0: streams never give way.
   */
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(60_000)
  AI_SETUP_FIRST_MAX_MS = 2000;

  /** Runs waiting for their setup beyond which running streams give way. */
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(100_000)
  AI_SETUP_FIRST_MIN_WAITING = 128;

  /**
   * Time after which, in one turn of the event loop, no more streams start relaying their chunks: the
   * others go on in a later turn; 0: no limit.
   */
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(1_000)
  AI_STREAM_TURN_BUDGET_MS = 5;

  // Automations
  /** This instance starts the automations that are due (several instances may: each slot runs once). */
  @Transform(toBoolean)
  @IsBoolean()
  AUTOMATIONS_ENABLED = true;

  /** How often the scheduler looks for due automations, in ms. */
  @Transform(toNumber)
  @IsInt()
  @Min(100)
  @Max(60000)
  AUTOMATION_POLL_MS = 1000;

  /** Automation runs in progress at once over every instance sharing the store; more wait for a free place. */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(1000)
  AUTOMATION_MAX_RUNS = 8;

  /** Automation runs of one workspace in progress at once (over every instance). */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(100)
  AUTOMATION_MAX_RUNS_PER_WORKSPACE = 2;

  /** Days an automation run (its record and its thread) is kept after it started. */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(3650)
  AUTOMATION_RETENTION_DAYS = 30;

  /** Days an automation run's proposal or question waits for an answer before it expires (settled, nothing applied). */
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(365)
  AUTOMATION_INTERRUPT_TTL_DAYS = 7;

  // Secrets of the provider configurations: checked by loadAppConfig, never echoed.
  @IsOptional()
  @IsString()
  AI_SECRETS_KEY?: string;

  @IsOptional()
  @IsString()
  AI_SECRETS_KEY_PREVIOUS?: string;

  // LLM endpoint (provider keys and base URLs are looked up through config/providers.json)
  @IsOptional()
  @IsString()
  @MinLength(1)
  LLM_PROVIDER?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  LLM_MODEL?: string;

  @IsOptional()
  @IsUrl(urlOptions)
  LLM_BASE_URL?: string;

  @IsOptional()
  @IsString()
  LLM_API_KEY?: string;

  /** Silence allowed between two events of an upstream stream before it is cancelled (timeout). */
  @Transform(toNumber)
  @IsInt()
  @Min(100)
  LLM_STREAM_IDLE_TIMEOUT_MS = 90000;

  // Retrieval
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  RAG_CACHE_TTL_MS = 120000;

  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(200)
  RAG_MAX_NODES = 20;

  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(3)
  RAG_MAX_DEPTH = 2;

  /** How long a question waits for a large graph's search index being built before answering from what is ready. */
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(60000)
  RAG_INDEX_WAIT_MS = 750;

  // Embeddings
  @IsOptional()
  @IsIn(['local', 'openai', 'openai-compatible', 'ollama', 'none'])
  EMBEDDING_PROVIDER?: 'local' | 'openai' | 'openai-compatible' | 'ollama' | 'none';

  @IsOptional()
  @IsString()
  @MinLength(1)
  EMBEDDING_MODEL?: string;

  @IsOptional()
  @IsUrl(urlOptions)
  EMBEDDING_BASE_URL?: string;

  @IsOptional()
  @IsString()
  EMBEDDING_API_KEY?: string;

  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(2048)
  EMBEDDING_BATCH_SIZE = 64;

  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(32)
  EMBEDDING_CONCURRENCY = 2;

  // Conversation memory
  @Transform(toBoolean)
  @IsBoolean()
  MEMORY_ENABLED = true;

  @Transform(toNumber)
  @IsInt()
  @Min(1000)
  @Max(200000)
  MEMORY_L1_EVERY_CHARS = 8000;

  @Transform(toNumber)
  @IsInt()
  @Min(1000)
  @Max(200000)
  MEMORY_L2_EVERY_CHARS = 4000;

  @IsOptional()
  @Transform(toNumber)
  @IsNumber()
  @Min(0)
  @Max(1)
  MEMORY_RECALL_MIN_SCORE?: number;

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(20)
  MEMORY_RECALL_L0_LIMIT = 3;

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(20)
  MEMORY_RECALL_L1_LIMIT = 5;

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(20)
  MEMORY_RECALL_L2_LIMIT = 3;

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(100000)
  MEMORY_RECALL_MAX_TOKENS = 1500;

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(100000)
  MEMORY_SUMMARY_MAX_TOKENS = 2000;

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  MEMORY_L1_RETENTION_DAYS = 30;

  @Transform(toNumber)
  @IsInt()
  @Min(0)
  MEMORY_L2_RETENTION_DAYS = 90;

  @IsString()
  @MinLength(1)
  MEMORY_TRIM_SCHEDULE = '0 3 * * *';
}
