/** Collections of the ArangoDB memory repository (this service's own; Nodius has no such data). */
export const ARANGO_MEMORY_NAMES = {
  /** One document per memory record, `_key` = memoryId. */
  records: 'nodius_ai_memory',
  /** One document per thread with summaries, `_key` = hashed (workspace, thread id). */
  cursors: 'nodius_ai_memory_cursors',
} as const;
