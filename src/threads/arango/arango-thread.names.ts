import { ARANGO_GRAPH_NAMES } from '../../graph/arango/arango-graph.names';

/**
 * Collections of the ArangoDB thread repository. Threads are Nodius's `nodius_ai_threads` documents
 * (shared with Nodius); the other three belong to this service alone and are kept
 * apart so that a lease renewal, a usage total or an Idempotency-Key never rewrites a thread document.
 */
export const ARANGO_THREAD_NAMES = {
  threads: ARANGO_GRAPH_NAMES.threads,
  /** Run leases, `_key` = thread id. */
  leases: 'nodius_ai_thread_leases',
  /** Usage totals per workspace, `_key` = hashed workspace. */
  workspaceUsage: 'nodius_ai_workspace_usage',
  /** Idempotency-Key records of POST /api/ai/chat, `_key` = hashed (workspace, user, key). */
  idempotencyKeys: 'nodius_ai_idempotency_keys',
} as const;
