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
 * Semantic recall over a thread's memory (docs/memory.md, "Recall"): the new message is
 * embedded once and compared with every record of the three levels embedded by the same model;
 * per level, the best hits above the threshold are kept (by default 3 turns, 5 short-term and 3 long-term
 * summaries), then all of them, best first, as long as they fit in the token budget. Records the
 * model already sees are never recalled. An exact scan: a thread holds at most a few thousand records.
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
    const candidates = (await this.repository.list(request.workspace, request.threadId)).filter(
      (record) => record.embedding && record.embeddingModel === provider.modelName && !request.exclude.has(record.memoryId),
    );
    if (candidates.length === 0) return [];
    const query = await provider.embedOne(request.query, request.signal);
    const minScore = this.options.minScore ?? defaultRecallMinScore(provider);
    const scored = candidates
      .map((record) => ({ record, score: cosine(query, record.embedding as Float32Array) }))
      .filter((hit) => hit.score > minScore)
      .sort((a, b) => b.score - a.score);
    const perLevel: Record<MemoryLevel, number> = { 0: 0, 1: 0, 2: 0 };
    const recalled: RecalledMemory[] = [];
    let tokens = 0;
    for (const hit of scored) {
      const level = hit.record.level;
      if (perLevel[level] >= limits[level]) continue;
      const cost = this.options.countTokens(hit.record.text);
      if (tokens + cost > maxTokens) continue;
      perLevel[level] += 1;
      tokens += cost;
      recalled.push(hit);
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
