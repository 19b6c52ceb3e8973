import type { ResumeInput, TokenSource } from './ai-chat.client';
import type {
  AgentResult,
  ErrorBody,
  ErrorCode,
  GraphDocument,
  MemoryEntryView,
  MemoryQuery,
  RagContextResponse,
  RevertResult,
  ThreadChangeView,
  ThreadSummary,
  ThreadView,
} from './protocol';

/** A REST answer in docs/protocol.md §3's error shape (or a network failure: statusCode 0, code `network`). */
export class AiApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'AiApiError';
  }
}

export interface AiRestClientOptions {
  /** The service's origin, e.g. `http://localhost:3000`. */
  url: string;
  token?: TokenSource;
  /** Defaults to the global fetch (browsers, Node 18+). */
  fetch?: typeof fetch;
}

/**
 * The REST routes a chat UI needs beside the socket (docs/protocol.md §3, §9): threads, a thread's messages and
 * its change log, undo and restore, a decision on a pending proposal, what the AI sees for a question, and the graph
 * itself. Errors are thrown as AiApiError.
 */
export class AiRestClient {
  private readonly base: string;
  private readonly fetcher: typeof fetch;

  constructor(private readonly options: AiRestClientOptions) {
    this.base = options.url.replace(/\/+$/, '');
    this.fetcher = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** POST /api/ai/threads: the caller's threads on a graph, newest first. */
  listThreads(graphKey: string): Promise<ThreadSummary[]> {
    return this.request('POST', '/api/ai/threads', { graphKey });
  }

  /** GET /api/ai/thread/:threadId */
  getThread(threadId: string): Promise<ThreadView> {
    return this.request('GET', `/api/ai/thread/${encodeURIComponent(threadId)}`);
  }

  /** DELETE /api/ai/thread/:threadId */
  async deleteThread(threadId: string): Promise<void> {
    await this.request('DELETE', `/api/ai/thread/${encodeURIComponent(threadId)}`);
  }

  /**
   * GET /api/ai/thread/:threadId/memory (docs/protocol.md §8.6): the thread's memory, oldest first, filtered by
   * level and by an inclusive time window (epoch milliseconds, a Date or an ISO 8601 text).
   */
  getMemory(threadId: string, query: MemoryQuery = {}): Promise<MemoryEntryView[]> {
    const params = new URLSearchParams();
    if (query.level !== undefined) params.set('level', String(query.level));
    for (const key of ['since', 'until'] as const) {
      const value = query[key];
      if (value !== undefined) params.set(key, value instanceof Date ? value.toISOString() : String(value));
    }
    const search = params.size > 0 ? `?${params.toString()}` : '';
    return this.request('GET', `/api/ai/thread/${encodeURIComponent(threadId)}/memory${search}`);
  }

  /**
   * GET /api/ai/thread/:threadId/changes (docs/protocol.md §9.1): every change applied (or sent to the editor) for the
   * thread, oldest first, with its message, actor, change set, inverse, and the revert that reverted it.
   */
  listChanges(threadId: string): Promise<ThreadChangeView[]> {
    return this.request('GET', `/api/ai/thread/${encodeURIComponent(threadId)}/changes`);
  }

  /**
   * POST /api/ai/thread/:threadId/undo (docs/protocol.md §9.4): reverts a message's changes (absent: the latest
   * assistant message whose changes are in effect). What changed since is refused, listed in `refused`.
   */
  undo(threadId: string, messageId?: string): Promise<RevertResult> {
    return this.request(
      'POST',
      `/api/ai/thread/${encodeURIComponent(threadId)}/undo`,
      messageId === undefined ? {} : { messageId },
    );
  }

  /** POST /api/ai/thread/:threadId/restore (docs/protocol.md §9.4): reverts what the assistant applied after `messageId`. */
  restore(threadId: string, messageId: string): Promise<RevertResult> {
    return this.request('POST', `/api/ai/thread/${encodeURIComponent(threadId)}/restore`, { messageId });
  }

  /**
   * POST /api/ai/resume: decides the pending proposal (`approved`, `feedback`; a batch's `approvedItems`, docs/protocol.md
   * §9.3) or answers the question (`answer`), then waits for the rest of the answer. `resolution` says what became of a
   * proposal (approved, rejected, stale with what `changed`, the items applied and declined).
   */
  resume(input: ResumeInput): Promise<AgentResult> {
    return this.request('POST', '/api/ai/resume', input);
  }

  /** POST /api/rag/context: what the AI would see for this question. */
  ragContext(
    graphKey: string,
    query: string,
    options?: { maxNodes?: number; maxDepth?: number },
  ): Promise<RagContextResponse> {
    return this.request('POST', '/api/rag/context', { graphKey, query, ...(options ? { options } : {}) });
  }

  /** GET /api/graphs/:graphKey */
  getGraph(graphKey: string): Promise<GraphDocument> {
    return this.request('GET', `/api/graphs/${encodeURIComponent(graphKey)}`);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const source = this.options.token;
    const token = typeof source === 'function' ? source() : source;
    if (token) headers.authorization = `Bearer ${token}`;
    let response: Response;
    try {
      response = await this.fetcher(`${this.base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new AiApiError(
        0,
        'network',
        `The service cannot be reached (${error instanceof Error ? error.message : String(error)})`,
        true,
      );
    }
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    const parsed: unknown = text.length > 0 ? safeJson(text) : undefined;
    if (!response.ok) {
      const error = (parsed ?? {}) as Partial<ErrorBody>;
      throw new AiApiError(
        response.status,
        error.code ?? 'internal',
        error.message ?? `${method} ${path} answered ${response.status}`,
        error.retryable ?? false,
        error.details,
      );
    }
    return parsed as T;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
