import type { ThreadMessage } from '../thread.types';

/**
 * The first system message is the prompt unless it is marked as a RAG context; later unmarked
 * system messages (threads stored before messages had a `kind`) are treated as contexts.
 */
export function isSystemPrompt(message: ThreadMessage, index: number): boolean {
  if (message.role !== 'system') return false;
  if (message.kind) return message.kind === 'system_prompt';
  return index === 0;
}

/**
 * Index of the current question's stored context: the context message right before the last user
 * message, or right after it; -1 when there is none. Contexts of earlier questions are superseded:
 * never sent to the model again (see toLlmMessages).
 */
export function currentContextIndex(messages: readonly ThreadMessage[]): number {
  const lastUser = messages.findLastIndex((message) => message.role === 'user');
  if (lastUser === -1) return -1;
  for (const index of [lastUser - 1, lastUser + 1]) {
    const candidate = messages[index];
    if (candidate && candidate.role === 'system' && !isSystemPrompt(candidate, index)) return index;
  }
  return -1;
}

/**
 * The messages without the contexts of earlier questions (what a cached thread keeps in memory).
 * Kept: the system prompt, the current question's context, and any context after the last user
 * message (one committed ahead of its question).
 */
export function withoutSupersededContexts(messages: readonly ThreadMessage[]): ThreadMessage[] {
  const current = currentContextIndex(messages);
  const lastUser = messages.findLastIndex((message) => message.role === 'user');
  return messages.filter(
    (message, index) =>
      message.role !== 'system' || index === current || index > lastUser || isSystemPrompt(message, index),
  );
}
