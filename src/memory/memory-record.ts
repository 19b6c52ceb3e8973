/**
 * Conversation memory: three levels of records per thread.
 *  - 0: one record per turn (the user message, the answers, the tools used), embedded for recall;
 *  - 1: a short-term summary of consecutive turns, every MEMORY_L1_EVERY_CHARS characters of conversation;
 *  - 2: a long-term summary of consecutive level-1 summaries, every MEMORY_L2_EVERY_CHARS characters of them.
 * There is no level 3.
 */
export type MemoryLevel = 0 | 1 | 2;

export const MEMORY_LEVELS: readonly MemoryLevel[] = [0, 1, 2];

/** Who wrote a summary's text: the configured model, or the offline extractive summarizer (no model). */
export type SummaryAuthor = 'llm' | 'extractive';

/** A graph node a record mentions, with the fingerprint of its content when the record was written. */
export interface NodeMention {
  key: string;
  /** nodeContentFingerprint of the node at writing time: a different one later means the node changed. */
  fingerprint: string;
}

export interface MemoryRecord {
  memoryId: string;
  workspace: string;
  threadId: string;
  /** The thread's graph: mentions are keys of this graph. */
  graphKey: string;
  level: MemoryLevel;
  /** Epoch milliseconds. */
  createdTime: number;
  /** The same instant as ISO 8601 with the service's UTC offset (formatLocalDate). */
  createdAt: string;
  /** Level 0: the turn as embedded; levels 1-2: the summary. */
  text: string;
  /** Level 0: the id of the turn's user message. Null for summaries. */
  turnId: string | null;
  /** Characters of the thread's conversation this record covers: [start, end), start inclusive. */
  charRange: [number, number];
  /** Level 1: the level-0 records it summarizes; level 2: the level-1 records. Empty for level 0. */
  parentIds: string[];
  /** Node keys checked against the graph when written (invented keys are dropped). */
  mentions: NodeMention[];
  keyFindings: string[];
  toolsUsed: string[];
  topics: string[];
  /** Summaries only. */
  author: SummaryAuthor | null;
  /** Null until embedded (the embedding is computed after the record is stored, and retried). */
  embedding: Float32Array | null;
  embeddingModel: string | null;
  /** A mentioned node changed (or was deleted) after the record was written. */
  stale: boolean;
  staleTime: number | null;
}

/** Where each level's summarization stands in a thread: characters of conversation (level 1) or of level-1 text (level 2) already summarized. */
export interface MemoryCursor {
  /** End of the conversation characters covered by level-1 summaries. */
  level1End: number;
  /** End of the conversation characters covered by level-2 summaries. */
  level2End: number;
}

export const EMPTY_MEMORY_CURSOR: Readonly<MemoryCursor> = Object.freeze({ level1End: 0, level2End: 0 });

/** Which records of a thread to read; times are epoch milliseconds, both inclusive. */
export interface MemoryFilter {
  level?: MemoryLevel;
  since?: number;
  until?: number;
  /** Only records without an embedding of this model (none yet, or another model's). */
  needingEmbeddingBy?: string;
  /** Only these records. */
  memoryIds?: readonly string[];
  /** false: records come without their vectors (`embedding` and `embeddingModel` null), which is much cheaper to read. Default true. */
  vectors?: boolean;
}

/** A record's vector, as recall scans them (the rest of the record is read for the hits only). */
export interface MemoryVector {
  memoryId: string;
  level: MemoryLevel;
  embedding: Float32Array;
}
