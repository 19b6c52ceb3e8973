import type { EmbeddingProvider } from '../../embeddings/embedding-provider';
import type { CountTokens } from '../../providers/token-estimate';
import type { MemoryLevel, MemoryRecord } from '../memory-record';
import type { MemoryRepository } from '../memory.repository';
import { defaultRecallMinScore } from './recall-threshold';

export interface MemoryRecallOptions {
  /** Undefined: defaultRecallMinScore of the embedding model. */
  minScore: number | undefined;
  /** Hits kept per level before the token budget. */
  limits: Readonly<Record<MemoryLevel, number>>;
  /** Tokens the recalled records may take in all. */
  maxTokens: number;
  countTokens: CountTokens;
}

export interface RecallRequest {
  workspace: string;
  threadId: string;
  /** The new message: what to find memory for. */
  query: string;
  /** Records the model already sees (turns still in the history, summaries standing for the pruned part). */
  exclude: ReadonlySet<string>;
  signal?: AbortSignal;
}

export interface RecalledMemory {
  record: MemoryRecord;
  /** Cosine similarity to the query. */
  score: number;
}

/**
 * Semantic recall over a thread's memory: the new message is embedded once and compared with every record
 * of the three levels embedded by the same model; per level, the best hits above the threshold are kept
 * (by default 3 turns, 5 short-term and 3 long-term summaries), then all of them, best first, as long as
 * they fit in the token budget. Records the model already sees are never recalled. An exact scan over the
 * vectors alone (a thread holds at most a few thousand records); only the hits are then read in full.
 */
export class MemoryRecaller {
  constructor(
    private readonly repository: MemoryRepository,
    private readonly embeddings: EmbeddingProvider | null,
    private readonly options: MemoryRecallOptions,
  ) {}

  async recall(request: RecallRequest): Promise<RecalledMemory[]> {
    const provider = this.embeddings;
    const { limits, maxTokens } = this.options;
    if (!provider || maxTokens <= 0 || limits[0] + limits[1] + limits[2] === 0) return [];
    const candidates = (await this.repository.vectors(request.workspace, request.threadId, provider.modelName)).filter(
      (vector) => !request.exclude.has(vector.memoryId) && limits[vector.level] > 0,
    );
    if (candidates.length === 0) return [];
    const query = await provider.embedOne(request.query, request.signal);
    const minScore = this.options.minScore ?? defaultRecallMinScore(provider);
    const scored = candidates
      .map((vector) => ({ vector, score: cosine(query, vector.embedding) }))
      .filter((hit) => hit.score > minScore)
      .sort((a, b) => b.score - a.score);
    // Only the best of each level are read in full: twice the level's limit, so hits too large for the budget leave room for the next.
    const perLevel: Record<MemoryLevel, number> = { 0: 0, 1: 0, 2: 0 };
    const best = scored.filter((hit) => ++perLevel[hit.vector.level] <= limits[hit.vector.level] * 2);
    if (best.length === 0) return [];
    const records = new Map(
      (
        await this.repository.list(request.workspace, request.threadId, {
          memoryIds: best.map((hit) => hit.vector.memoryId),
          vectors: false,
        })
      ).map((record) => [record.memoryId, record]),
    );
    const chosen: Record<MemoryLevel, number> = { 0: 0, 1: 0, 2: 0 };
    const recalled: RecalledMemory[] = [];
    let tokens = 0;
    for (const hit of best) {
      const record = records.get(hit.vector.memoryId);
      if (!record || chosen[record.level] >= limits[record.level]) continue;
      const cost = this.options.countTokens(record.text);
      if (tokens + cost > maxTokens) continue;
      chosen[record.level] += 1;
      tokens += cost;
      recalled.push({ record, score: hit.score });
    }
    return recalled;
  }
}

function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index += 1) {
    dot += a[index] * b[index];
    normA += a[index] * a[index];
    normB += b[index] * b[index];
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
