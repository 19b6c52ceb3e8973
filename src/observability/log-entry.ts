export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One JSON log line. `event` is a stable snake_case name (llm_error, token_usage, http_request, ...). */
export interface LogEntry {
  time: string;
  level: LogLevel;
  scope: string;
  event: string;
  [field: string]: unknown;
}

/** Where log entries go; stderr JSON lines by default, replaceable (Sentry, Datadog, tests). */
export type LogSink = (entry: LogEntry) => void;
