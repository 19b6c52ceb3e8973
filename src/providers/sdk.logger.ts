import { Logger } from '../observability/logger';

/** The logger shape both SDKs accept (openai and @anthropic-ai/sdk ClientOptions.logger). */
export interface SdkLogger {
  error: (message: string, ...args: unknown[]) => void;
  warn: (message: string, ...args: unknown[]) => void;
  info: (message: string, ...args: unknown[]) => void;
  debug: (message: string, ...args: unknown[]) => void;
}

/**
 * What the SDKs would print on the console, as one JSON line: their message only, never their
 * arguments, which hold what the upstream sent (a stream event they could not parse is model
 * output: content stays out of the logs). The failure itself reaches the caller as an error and
 * is classified there.
 */
export function sdkLogger(provider: string): SdkLogger {
  const logger = new Logger('llm');
  const write = (level: 'warn' | 'debug') => (message: string) =>
    logger[level]('llm_sdk_message', { provider, message: String(message).slice(0, 200) });
  return { error: write('warn'), warn: write('warn'), info: write('debug'), debug: write('debug') };
}
