import { LogEntry, LogLevel, LogSink } from './log-entry';

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Field names whose values never reach a log line, whatever the caller passes. */
const SECRET_FIELD = /(api[-_]?key|authorization|password|secret|token$|^token|jwt|cookie)/i;

const stderrSink: LogSink = (entry) => {
  process.stderr.write(`${JSON.stringify(entry)}\n`);
};

const state: { sink: LogSink; level: LogLevel; aiDebug: boolean } = { sink: stderrSink, level: 'info', aiDebug: false };

/** Process-wide logging settings, applied once at start from AppConfig. */
export function configureLogging(options: { level?: LogLevel; aiDebug?: boolean }): void {
  if (options.level) state.level = options.level;
  if (options.aiDebug !== undefined) state.aiDebug = options.aiDebug;
}

export function setLogSink(sink: LogSink): void {
  state.sink = sink;
}

export function resetLogSink(): void {
  state.sink = stderrSink;
}

/** True when AI_DEBUG is on: debug events are emitted and message content may be logged. */
export function isAiDebugEnabled(): boolean {
  return state.aiDebug;
}

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const safe: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    safe[key] = SECRET_FIELD.test(key) && key !== 'tokensStreamed' && !/Tokens$/.test(key) ? '[redacted]' : value;
  }
  return safe;
}

/**
 * Structured JSON logger. `event` names what happened; fields carry ids, counts and durations,
 * never message contents or secrets (use debugEvent for content, which only AI_DEBUG emits).
 */
export class Logger {
  constructor(private readonly scope: string) {}

  debug(event: string, fields: Record<string, unknown> = {}): void {
    this.write('debug', event, fields);
  }

  info(event: string, fields: Record<string, unknown> = {}): void {
    this.write('info', event, fields);
  }

  warn(event: string, fields: Record<string, unknown> = {}): void {
    this.write('warn', event, fields);
  }

  error(event: string, fields: Record<string, unknown> = {}): void {
    this.write('error', event, fields);
  }

  /** Emitted only when AI_DEBUG is on, whatever LOG_LEVEL says (docs/observability.md). */
  debugEvent(event: string, fields: Record<string, unknown> = {}): void {
    if (!state.aiDebug) return;
    this.emit('debug', event, fields);
  }

  private write(level: LogLevel, event: string, fields: Record<string, unknown>): void {
    if (LEVEL_ORDER[level] < LEVEL_ORDER[state.level]) return;
    this.emit(level, event, fields);
  }

  private emit(level: LogLevel, event: string, fields: Record<string, unknown>): void {
    const entry: LogEntry = { time: new Date().toISOString(), level, scope: this.scope, event, ...redact(fields) };
    try {
      state.sink(entry);
    } catch {
      // A broken sink must never break a request.
    }
  }
}
