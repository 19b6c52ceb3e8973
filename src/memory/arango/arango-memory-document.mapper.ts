import { MemoryRecord } from '../memory-record';

/** A memory record as stored in `nodius_ai_memory`: `_key` for its id, the vector as a plain array, and the mention keys again for the array index. */
export type ArangoMemoryDocument = Omit<MemoryRecord, 'memoryId' | 'embedding'> & {
  _key: string;
  embedding: number[] | null;
  /** The keys of `mentions`, for the persistent array index used when a node changes. */
  nodesMentioned: string[];
};

/** Converts between MemoryRecord and its ArangoDB document; reading tolerates missing optional attributes. */
export const ArangoMemoryDocumentMapper = {
  toDocument(record: MemoryRecord): ArangoMemoryDocument {
    return {
      _key: record.memoryId,
      workspace: record.workspace,
      threadId: record.threadId,
      graphKey: record.graphKey,
      level: record.level,
      createdTime: record.createdTime,
      createdAt: record.createdAt,
      text: record.text,
      turnId: record.turnId,
      charRange: [record.charRange[0], record.charRange[1]],
      parentIds: [...record.parentIds],
      mentions: record.mentions.map(({ key, fingerprint }) => ({ key, fingerprint })),
      nodesMentioned: record.mentions.map((mention) => mention.key),
      keyFindings: [...record.keyFindings],
      toolsUsed: [...record.toolsUsed],
      topics: [...record.topics],
      author: record.author,
      embedding: record.embedding ? Array.from(record.embedding) : null,
      embeddingModel: record.embedding ? record.embeddingModel : null,
      stale: record.stale,
      staleTime: record.staleTime,
    };
  },

  toRecord(document: ArangoMemoryDocument): MemoryRecord {
    const mentions = (document.mentions ?? []).map(({ key, fingerprint }) => ({ key, fingerprint }));
    mentions.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return {
      memoryId: document._key,
      workspace: document.workspace,
      threadId: document.threadId,
      graphKey: document.graphKey,
      level: document.level,
      createdTime: document.createdTime,
      createdAt: document.createdAt,
      text: document.text,
      turnId: document.turnId ?? null,
      charRange: [document.charRange[0], document.charRange[1]],
      parentIds: document.parentIds ?? [],
      mentions,
      keyFindings: document.keyFindings ?? [],
      toolsUsed: document.toolsUsed ?? [],
      topics: document.topics ?? [],
      author: document.author ?? null,
      embedding: Array.isArray(document.embedding) ? Float32Array.from(document.embedding) : null,
      embeddingModel: Array.isArray(document.embedding) ? (document.embeddingModel ?? null) : null,
      stale: document.stale === true,
      staleTime: document.staleTime ?? null,
    };
  },
};
