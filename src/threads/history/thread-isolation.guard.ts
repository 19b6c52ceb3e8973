import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';

const logger = new Logger('threads');

/** Anything that says which thread it belongs to: a stored message, or a message about to be sent. */
interface ThreadScopedMessage {
  role: string;
  threadId?: string;
}

/**
 * The messages that belong to another thread than `threadId`. A message without a thread id is not
 * counted: system messages built for one call (the loop's notes, recalled memory, summaries) carry
 * none, and threads stored before messages carried one are read as their own.
 */
export function foreignMessages<Message extends ThreadScopedMessage>(
  messages: readonly Message[],
  threadId: string,
): Message[] {
  return messages.filter((message) => message.threadId !== undefined && message.threadId !== threadId);
}

/**
 * Refuses a history that holds a message of another thread: logs
 * `thread_isolation_violation` (error: which threads, how many messages, of which roles, where it
 * was caught; never their content) and throws `internal`. Called when a history is built from the
 * store and before every upstream call of a run, so no conversation is ever sent another's messages.
 */
export function assertThreadIsolation(messages: readonly ThreadScopedMessage[], threadId: string, where: string): void {
  const foreign = foreignMessages(messages, threadId);
  if (foreign.length === 0) return;
  logger.error('thread_isolation_violation', {
    threadId,
    where,
    foreignMessages: foreign.length,
    foreignThreadIds: [...new Set(foreign.map((message) => message.threadId))],
    roles: [...new Set(foreign.map((message) => message.role))],
  });
  throw new AppError(
    'internal',
    `Refused to use a history of thread ${threadId} that holds ${foreign.length} message(s) of another thread`,
    {
      threadId,
    },
  );
}
