import type { MemoryLevel, MemoryRecord } from '../memory-record';

/** One record as GET /api/ai/thread/:threadId/memory returns it (docs/protocol.md §8.6). */
export interface MemoryEntryView {
  memoryId: string;
  level: MemoryLevel;
  createdTime: number;
  createdAt: string;
  text: string;
  nodesMentioned: string[];
  keyFindings: string[];
  charRange: [number, number];
  parentIds: string[];
  stale: boolean;
}

export function toMemoryEntryView(record: MemoryRecord): MemoryEntryView {
  return {
    memoryId: record.memoryId,
    level: record.level,
    createdTime: record.createdTime,
    createdAt: record.createdAt,
    text: record.text,
    nodesMentioned: record.mentions.map((mention) => mention.key),
    keyFindings: [...record.keyFindings],
    charRange: [record.charRange[0], record.charRange[1]],
    parentIds: [...record.parentIds],
    stale: record.stale,
  };
}
