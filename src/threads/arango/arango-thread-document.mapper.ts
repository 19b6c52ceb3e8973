import type { LlmToolCall } from '../../conversation/llm-message';
import type { NewThread } from '../thread.repository';
import { deriveThreadTitle } from '../thread-title';
import {
  EMPTY_USAGE,
  PendingInterrupt,
  PendingThread,
  ThreadCommit,
  ThreadHead,
  ThreadMessage,
  ThreadRecord,
  ThreadSummary,
  ThreadType,
  UsageTotals,
} from '../thread.types';

/**
 * A thread in `nodius_ai_threads`: Nodius's AIThreadDocument (`_key` = thread id, graphKey,
 * workspace, userId, conversationHistory, pendingInterrupt, createdTime, lastUpdatedTime) plus what
 * this service adds: title, revision, usage, and the ids of the last commits applied.
 */
export interface ArangoThreadDocument {
  _key: string;
  graphKey: string;
  workspace: string;
  userId: string;
  title: string;
  /** Absent on Nodius's own documents (chats). */
  type: ThreadType;
  automationId?: string;
  /** Every message, in conversation order (ThreadMessage objects). */
  conversationHistory: ThreadMessage[];
  pendingInterrupt: PendingInterrupt | null;
  revision: number;
  usage: UsageTotals;
  /** Operation ids of the latest commits (bounded): a replay of one of them changes nothing. */
  appliedOperationIds: string[];
  /**
   * The messages a client sees (not system or event ones), kept by every commit so that listing threads
   * never reads their histories; absent on documents written before (counted from the history then).
   */
  messageCount: number;
  createdTime: number;
  lastUpdatedTime: number;
}

/** A document as read: anything may be missing from threads Nodius stored before this service. */
export type StoredThreadDocument = Partial<Omit<ArangoThreadDocument, 'conversationHistory' | 'pendingInterrupt'>> & {
  _key: string;
  conversationHistory?: unknown[];
  pendingInterrupt?: unknown;
};

/** One row of the approval queue query (ArangoThreadQueries.pending). */
export interface PendingThreadRow {
  threadId: string;
  type: ThreadType | null;
  automationId: string | null;
  userId: string;
  graphKey: string;
  pendingInterrupt: unknown;
}

/** One row of the thread list query (ArangoThreadQueries.summaries). */
export interface ThreadSummaryRow {
  threadId: string;
  graphKey: string;
  /** null on a thread stored without a title (Nodius's own documents). */
  title: string | null;
  type: ThreadType | null;
  automationId: string | null;
  /** The first user message, sent only when there is no title, to derive one. */
  firstQuestion: string | null;
  createdTime: number;
  lastUpdatedTime: number | null;
  messageCount: number;
  pendingInterrupt: boolean;
}

const USAGE_FIELDS = Object.keys(EMPTY_USAGE) as Array<keyof UsageTotals>;

/**
 * ThreadRecord ↔ `nodius_ai_threads` document. Documents this service wrote map back exactly.
 * Threads Nodius stored in its own shape (OpenAI messages without ids, no title, revision or
 * usage, its own pending-interrupt shape) are read leniently so they stay reachable: missing ids
 * and times are filled in deterministically, `tool_calls`/`tool_call_id` become toolCalls/toolCallId,
 * the first system message is the prompt and later ones retrieved contexts, the title is derived
 * from the first question, and a pending interrupt this service cannot resume is left out.
 */
export class ArangoThreadDocumentMapper {
  static toNewDocument(thread: NewThread): ArangoThreadDocument {
    return {
      _key: thread.threadId,
      graphKey: thread.graphKey,
      workspace: thread.workspace,
      userId: thread.userId,
      title: thread.title,
      type: thread.type ?? 'chat',
      ...(thread.automationId ? { automationId: thread.automationId } : {}),
      conversationHistory: [],
      pendingInterrupt: null,
      revision: 0,
      usage: { ...EMPTY_USAGE },
      appliedOperationIds: [],
      messageCount: 0,
      createdTime: thread.createdTime,
      lastUpdatedTime: thread.createdTime,
    };
  }

  static toRecord(doc: StoredThreadDocument): ThreadRecord {
    const createdTime = doc.createdTime ?? 0;
    const raw = Array.isArray(doc.conversationHistory) ? doc.conversationHistory : [];
    const firstSystem = raw.findIndex((message) => isObject(message) && message.role === 'system');
    const messages = raw.map((message, index) =>
      withThread(toMessage(message, index, createdTime, index === firstSystem), doc._key),
    );
    return {
      threadId: doc._key,
      workspace: doc.workspace ?? '',
      userId: doc.userId ?? '',
      graphKey: doc.graphKey ?? '',
      title: doc.title ?? deriveThreadTitle(messages.find((message) => message.role === 'user')?.content ?? ''),
      ...origin(doc.type, doc.automationId),
      messages,
      pendingInterrupt: ArangoThreadDocumentMapper.toPendingInterrupt(doc.pendingInterrupt),
      revision: doc.revision ?? 0,
      usage: ArangoThreadDocumentMapper.toUsage(doc.usage),
      createdTime,
      lastUpdatedTime: doc.lastUpdatedTime ?? createdTime,
    };
  }

  static toSummary(row: ThreadSummaryRow): ThreadSummary {
    return {
      threadId: row.threadId,
      graphKey: row.graphKey,
      title: row.title ?? deriveThreadTitle(row.firstQuestion ?? ''),
      ...origin(row.type, row.automationId),
      createdTime: row.createdTime,
      lastUpdatedTime: row.lastUpdatedTime ?? row.createdTime,
      messageCount: row.messageCount,
      pendingInterrupt: row.pendingInterrupt,
    };
  }

  /** An approval queue row; null when its interrupt is not one this service can resume. */
  static toPendingThread(row: PendingThreadRow): PendingThread | null {
    const pendingInterrupt = ArangoThreadDocumentMapper.toPendingInterrupt(row.pendingInterrupt);
    if (!pendingInterrupt) return null;
    return {
      threadId: row.threadId,
      ...origin(row.type, row.automationId),
      userId: row.userId,
      graphKey: row.graphKey,
      pendingInterrupt,
    };
  }

  static toHead(row: { revision: number | null; usage: unknown }): ThreadHead {
    return { revision: row.revision ?? 0, usage: ArangoThreadDocumentMapper.toUsage(row.usage) };
  }

  /** Stored totals with every field present (missing ones are 0). */
  static toUsage(value: unknown): UsageTotals {
    const stored = isObject(value) ? value : {};
    const usage = { ...EMPTY_USAGE };
    for (const field of USAGE_FIELDS) {
      const amount = stored[field];
      if (typeof amount === 'number' && Number.isFinite(amount)) usage[field] = amount;
    }
    return usage;
  }

  /** The interrupt, when it has the shape this service writes (one it can resume); null otherwise. */
  static toPendingInterrupt(value: unknown): PendingInterrupt | null {
    if (!isObject(value) || !isObject(value.interrupt) || typeof value.toolName !== 'string') return null;
    if (typeof value.interrupt.kind !== 'string' || typeof value.interrupt.toolCallId !== 'string') return null;
    return {
      ...(value as unknown as PendingInterrupt),
      remainingToolCalls: Array.isArray(value.remainingToolCalls) ? value.remainingToolCalls : [],
    };
  }

  /**
   * The attributes a commit replaces besides messages, revision and time: only those it sets, so an
   * undefined pendingInterrupt or title leaves the stored one (null clears the interrupt).
   */
  static toCommitPatch(commit: ThreadCommit): Partial<Pick<ArangoThreadDocument, 'pendingInterrupt' | 'title'>> {
    const patch: Partial<Pick<ArangoThreadDocument, 'pendingInterrupt' | 'title'>> = {};
    if (commit.pendingInterrupt !== undefined) patch.pendingInterrupt = commit.pendingInterrupt;
    if (commit.title !== undefined) patch.title = commit.title;
    return patch;
  }
}

/** How many of these messages a client sees in a thread listing: not the system prompt, contexts or events. */
export function shownMessageCount(messages: readonly ThreadMessage[]): number {
  return messages.filter((message) => message.role !== 'system' && message.role !== 'event').length;
}

function toMessage(raw: unknown, index: number, fallbackTime: number, isFirstSystem: boolean): ThreadMessage {
  const stored = isObject(raw) ? raw : {};
  if (typeof stored.id === 'string' && typeof stored.createdTime === 'number')
    return stored as unknown as ThreadMessage;

  // Nodius's OpenAI-shaped message (or a damaged one): rebuilt field by field.
  const role = (['system', 'user', 'assistant', 'tool'] as const).find((known) => known === stored.role) ?? 'user';
  const message: ThreadMessage = {
    id: typeof stored.id === 'string' ? stored.id : `msg_stored_${index}`,
    role,
    content: typeof stored.content === 'string' ? stored.content : null,
    createdTime: typeof stored.createdTime === 'number' ? stored.createdTime : fallbackTime,
  };
  if (role === 'system') message.kind = isFirstSystem ? 'system_prompt' : 'rag_context';
  const toolCalls = stored.toolCalls ?? stored.tool_calls;
  if (role === 'assistant' && Array.isArray(toolCalls) && toolCalls.length > 0)
    message.toolCalls = toolCalls as LlmToolCall[];
  const toolCallId = stored.toolCallId ?? stored.tool_call_id;
  if (role === 'tool' && typeof toolCallId === 'string') message.toolCallId = toolCallId;
  const toolName = stored.toolName ?? stored.name;
  if (role === 'tool' && typeof toolName === 'string') message.toolName = toolName;
  if (stored.aborted === true) message.aborted = true;
  return message;
}

/** Nodius's own documents have no type: they are chats. */
function origin(
  type: ThreadType | null | undefined,
  automationId: string | null | undefined,
): { type: ThreadType; automationId?: string } {
  return type === 'automation' && automationId ? { type, automationId } : { type: 'chat' };
}

/** Messages this service wrote name their thread; those Nodius stored belong to the document they are in. */
function withThread(message: ThreadMessage, threadId: string): ThreadMessage {
  return typeof message.threadId === 'string' ? message : { ...message, threadId };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
