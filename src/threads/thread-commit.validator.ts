import type { ThreadMessage } from './thread.types';
import { ThreadCommitValidationError } from './thread-commit-validation.error';

const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool', 'event']);
const EVENT_TYPES: ReadonlySet<string> = new Set(['DATA_ADDED', 'ACTIONS_EXECUTED', 'ACTIONS_REVERTED']);

/**
 * Checks the messages of a commit against the stored conversation, so the store only ever holds a well-formed history:
 *   - every message has a unique non-empty id, a known role and a timestamp, and belongs to this thread;
 *   - a new system message says what it is (`kind`: system prompt or RAG context);
 *   - an assistant's tool calls have unique non-empty ids and a function name;
 *   - a tool message answers a call of the assistant message its run of tool messages follows,
 *     once (a result arriving after another message would be lost to the model), names the tool
 *     of that call, holds its result as a JSON object (every result the agent produces is one), and
 *     says whether it succeeded and how long it took;
 *   - an event carries its type, summary and results; it may come between the results of one
 *     assistant message (an action applied before a later call stopped for approval) without
 *     closing their run (history building shows it after the run).
 * A call may still lack its result (an interrupt waiting, a crash): history building covers that.
 * Throws ThreadCommitValidationError; returns nothing.
 */
export function validateThreadCommit(
  threadId: string,
  stored: readonly ThreadMessage[],
  append: readonly ThreadMessage[],
): void {
  const fail = (problem: string): never => {
    throw new ThreadCommitValidationError(threadId, problem);
  };
  const ids = new Set(stored.map((message) => message.id));
  let run = openToolRun(stored);

  for (const message of append) {
    if (typeof message.id !== 'string' || message.id.length === 0) fail('a message has no id');
    if (ids.has(message.id)) fail(`message id ${message.id} is already used`);
    ids.add(message.id);
    if (!ROLES.has(message.role)) fail(`message ${message.id} has an unknown role`);
    if (!Number.isFinite(message.createdTime)) fail(`message ${message.id} has no createdTime`);
    if (message.threadId !== undefined && message.threadId !== threadId)
      fail(`message ${message.id} belongs to another thread`);

    switch (message.role) {
      case 'system':
        if (message.kind !== 'system_prompt' && message.kind !== 'rag_context')
          fail(`system message ${message.id} has no kind`);
        run = null;
        break;
      case 'user':
        run = null;
        break;
      case 'assistant': {
        const callIds = (message.toolCalls ?? []).map((call) => call.id);
        if (callIds.some((id) => typeof id !== 'string' || id.length === 0))
          fail(`assistant message ${message.id} has a tool call without id`);
        if (new Set(callIds).size !== callIds.length) fail(`assistant message ${message.id} repeats a tool-call id`);
        if ((message.toolCalls ?? []).some((call) => !call.function?.name))
          fail(`assistant message ${message.id} has a tool call without name`);
        run = callIds.length > 0 ? { calls: callNames(message), answered: new Set() } : null;
        break;
      }
      case 'event': {
        const event = message.event;
        if (
          !event ||
          !EVENT_TYPES.has(event.type) ||
          typeof event.summary !== 'string' ||
          !Array.isArray(event.results)
        ) {
          fail(`event message ${message.id} has no valid event`);
        }
        break;
      }
      case 'tool': {
        const callId = message.toolCallId;
        if (!callId) fail(`tool message ${message.id} has no toolCallId`);
        const callName = run?.calls.get(callId as string);
        if (!run || callName === undefined)
          fail(`tool message ${message.id} answers no call of the assistant message before it`);
        if (run?.answered.has(callId as string)) fail(`tool call ${callId} already has a result`);
        run?.answered.add(callId as string);
        const problem = toolResultProblem(message, callName as string);
        if (problem) fail(`tool message ${message.id} (call ${callId}) ${problem}`);
        break;
      }
    }
  }
}

/** What is wrong with a tool result's own fields, or null. */
function toolResultProblem(message: ThreadMessage, callName: string): string | null {
  if (typeof message.toolName !== 'string' || message.toolName.length === 0) return 'has no toolName';
  if (message.toolName !== callName) return `is named ${message.toolName} but its call is ${callName}`;
  if (typeof message.content !== 'string' || !isJsonObjectText(message.content)) return 'does not hold a JSON object';
  if (typeof message.success !== 'boolean') return 'does not say whether it succeeded';
  if (typeof message.durationMs !== 'number' || !Number.isFinite(message.durationMs) || message.durationMs < 0)
    return 'has no durationMs';
  return null;
}

function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

interface ToolRun {
  /** Call id → the tool it names. */
  calls: Map<string, string>;
  answered: Set<string>;
}

function callNames(message: ThreadMessage): Map<string, string> {
  return new Map((message.toolCalls ?? []).map((call) => [call.id, call.function?.name ?? '']));
}

/** The tool calls still open at the end of the stored conversation: its last assistant message's, if only tool messages follow it. */
function openToolRun(stored: readonly ThreadMessage[]): ToolRun | null {
  const answered = new Set<string>();
  for (let index = stored.length - 1; index >= 0; index -= 1) {
    const message = stored[index];
    if (message.role === 'event') continue;
    if (message.role === 'tool') {
      if (message.toolCallId) answered.add(message.toolCallId);
      continue;
    }
    if (message.role !== 'assistant' || !message.toolCalls?.length) return null;
    return { calls: callNames(message), answered };
  }
  return null;
}
