/**
 * A system note in a thread: what was loaded into the context of a user message
 * (DATA_ADDED), what a series of actions did to the graph (ACTIONS_EXECUTED), or what a revert put back
 * (ACTIONS_REVERTED), one item per part with its outcome.
 */
export type ThreadEventType = 'DATA_ADDED' | 'ACTIONS_EXECUTED' | 'ACTIONS_REVERTED';

export interface ThreadEventResult {
  ok: boolean;
  /** What the item is, e.g. "create_node log-errors" or "nodes". */
  label: string;
  /** How it went, e.g. "on sheet main", or why it failed. */
  detail?: string;
  /** DATA_ADDED: the index, in the user message's `segments`, of the block this result is about. */
  segment?: number;
}

export interface ThreadEvent {
  type: ThreadEventType;
  /** One line for people and the model, e.g. "Created 2 nodes and 1 edge on sheet main". */
  summary: string;
  results: ThreadEventResult[];
  /** ACTIONS_EXECUTED and ACTIONS_REVERTED: the operations it records (GET /api/ai/thread/:threadId/changes). */
  operationIds?: string[];
}
