import type { SummaryAuthor } from '../memory-record';

/** What one summary call returns; the nodes mentioned are graph node keys. */
export interface ConversationSummary {
  summary: string;
  nodesMentioned: string[];
  keyFindings: string[];
  toolsUsed: string[];
  topics: string[];
}

/**
 * What a summary is made from: the turns of a level-1 summary (their memory text and the tools they
 * used), or the level-1 summaries of a level-2 one (with what they found).
 */
export interface SummarySource {
  text: string;
  toolsUsed: readonly string[];
  nodesMentioned: readonly string[];
  keyFindings: readonly string[];
}

export interface SummaryRequest {
  /** The thread's workspace: its provider configuration chooses the model. */
  workspace: string;
  level: 1 | 2;
  sources: readonly SummarySource[];
  signal?: AbortSignal;
}

export interface SummaryResult {
  summary: ConversationSummary;
  author: SummaryAuthor;
  /** The call's usage; null when no model was called. */
  usage: { promptTokens: number; completionTokens: number; cachedTokens: number; totalTokens: number } | null;
  provider: string;
  model: string;
}

/** Writes a level-1 or level-2 summary. */
export interface ConversationSummarizer {
  summarize(request: SummaryRequest): Promise<SummaryResult>;
}
