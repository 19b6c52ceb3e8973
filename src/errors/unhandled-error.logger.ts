import { randomUUID } from 'node:crypto';
import { Logger } from '../observability/logger';

/**
 * Logs an error no rule maps to a code (once, with its stack) under a new correlation id, and returns
 * that id: the client gets `internal` and the id, never the message.
 */
export function logUnhandledError(logger: Logger, error: unknown): string {
  const correlationId = randomUUID();
  logger.error('unhandled_error', {
    correlationId,
    errorName: error instanceof Error ? error.name : typeof error,
    errorMessage: error instanceof Error ? error.message : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
  return correlationId;
}
