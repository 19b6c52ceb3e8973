import pino, { Logger as PinoLogger, LoggerOptions } from 'pino';
import { LogEntry, LogLevel, LogSink } from './log-entry';

/**
 * Field paths whose values never reach a log line, whatever the caller passes: at the top level of
 * an entry, and in the headers of an entry, of the HTTP log's request and of its response.
 * Explicit paths only: a wildcard (`*.apiKey`) makes pino walk every
 * field of every line (~5x the cost of the line itself, measured in bench/hot-path-libraries.bench.ts).
 */
const SECRET_FIELDS = [
  'authorization',
  'Authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
  'apiKey',
  'api_key',
  'apikey',
  'password',
  'secret',
  'clientSecret',
  'jwt',
  'token',
  'accessToken',
  'refreshToken',
  'idToken',
  'syncToken',
  'x-sync-token',
];
export const REDACTED_PATHS: readonly string[] = [
  ...SECRET_FIELDS.map((field) => `["${field}"]`),
  ...['headers', 'req.headers', 'res.headers'].flatMap((parent) =>
    SECRET_FIELDS.map((field) => `${parent}["${field}"]`),
  ),
];

/** One JSON object per line: `level` as its name, ISO `time`, the scope bound by a child logger, then the fields. */
const OPTIONS: LoggerOptions = {
  level: 'info',
  base: undefined,
  messageKey: 'message',
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
  redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
};

interface LineStream {
  write(line: string): unknown;
  flush?(callback?: (error?: Error | null) => void): void;
}

/** stderr, written asynchronously (pino flushes it synchronously when the process exits). */
const stderr: LineStream = pino.destination({ dest: 2, sync: false });

/** Where the lines go: a test's sink if set, else pino-pretty (development, on a terminal), else stderr. */
const state: { aiDebug: boolean; pretty: boolean; sink: LineStream | null; output: LineStream } = {
  aiDebug: false,
  pretty: false,
  sink: null,
  output: stderr,
};
const destination: LineStream = {
  write: (line) => state.output.write(line),
  flush: (callback) => (state.output.flush ? state.output.flush(callback) : callback?.()),
};

/** Every scope's child logger hangs off this root; LOG_LEVEL is its level, which the children follow. */
const root = pino(OPTIONS, destination);
/** AI_DEBUG's events are written at debug level whatever LOG_LEVEL says: a second root, always at debug. */
const aiDebugRoot = pino({ ...OPTIONS, level: 'debug' }, destination);

function route(): void {
  state.output = state.sink ?? (state.pretty ? prettyStream() : null) ?? stderr;
}

/**
 * Process-wide logging settings, applied once at start from AppConfig. `pretty` (development only)
 * prints through pino-pretty when stderr is a terminal and pino-pretty is installed (a dev dependency).
 */
export function configureLogging(options: { level?: LogLevel; aiDebug?: boolean; pretty?: boolean }): void {
  if (options.level) root.level = options.level;
  if (options.aiDebug !== undefined) state.aiDebug = options.aiDebug;
  if (options.pretty !== undefined) state.pretty = options.pretty;
  route();
}

/** Sends every line to `sink`, parsed back from the JSON pino wrote (tests, or another collector). */
export function setLogSink(sink: LogSink): void {
  state.sink = {
    write: (line) => {
      try {
        sink(JSON.parse(line) as LogEntry);
      } catch {
        // A broken sink must never break a request.
      }
    },
  };
  route();
}

export function resetLogSink(): void {
  state.sink = null;
  route();
}

/** True when AI_DEBUG is on: debug events are emitted and message content may be logged. */
export function isAiDebugEnabled(): boolean {
  return state.aiDebug;
}

/** The root pino logger, for the pieces that take one (nestjs-pino's Nest logger, pino-http's request log). */
export function rootPinoLogger(): PinoLogger {
  return root;
}

let pretty: LineStream | null | undefined;

/** pino-pretty on stderr, made once; null when stderr is not a terminal or pino-pretty is not installed. */
function prettyStream(): LineStream | null {
  if (pretty !== undefined) return pretty;
  pretty = null;
  if (!process.stderr.isTTY) return pretty;
  try {
    // A dev dependency, absent from production images: required only here, and only when asked for.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional: an import would fail where it is absent
    const build = require('pino-pretty') as (options: object) => LineStream;
    pretty = build({
      destination: 2,
      messageKey: 'message',
      ignore: 'scope,event',
      messageFormat: '{scope} {event}{if message} {message}{end}',
    });
  } catch {
    // Not installed (production dependencies only): JSON lines it is.
  }
  return pretty;
}

/**
 * Structured JSON logger: a pino child logger per scope. `event` names what happened; fields carry
 * ids, counts and durations, never message contents or secrets (use debugEvent for content, which
 * only AI_DEBUG emits).
 */
export class Logger {
  private readonly pino: PinoLogger;
  private aiDebugPino: PinoLogger | undefined;

  constructor(private readonly scope: string) {
    this.pino = root.child({ scope });
  }

  debug(event: string, fields: Record<string, unknown> = {}): void {
    if (this.pino.isLevelEnabled('debug')) this.pino.debug({ event, ...fields });
  }

  info(event: string, fields: Record<string, unknown> = {}): void {
    if (this.pino.isLevelEnabled('info')) this.pino.info({ event, ...fields });
  }

  warn(event: string, fields: Record<string, unknown> = {}): void {
    if (this.pino.isLevelEnabled('warn')) this.pino.warn({ event, ...fields });
  }

  error(event: string, fields: Record<string, unknown> = {}): void {
    if (this.pino.isLevelEnabled('error')) this.pino.error({ event, ...fields });
  }

  /** Emitted only when AI_DEBUG is on, whatever LOG_LEVEL says. */
  debugEvent(event: string, fields: Record<string, unknown> = {}): void {
    if (!state.aiDebug) return;
    this.aiDebugPino ??= aiDebugRoot.child({ scope: this.scope });
    this.aiDebugPino.debug({ event, ...fields });
  }
}
