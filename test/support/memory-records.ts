import { formatLocalDate } from '../../src/memory/local-date.format';
import { MemoryRecord } from '../../src/memory/memory-record';

let counter = 0;

/** A memory record with every field set; overrides win. Ids are unique per call unless given. */
export function memoryRecord(
  overrides: Partial<MemoryRecord> & Pick<MemoryRecord, 'workspace' | 'threadId'>,
): MemoryRecord {
  counter += 1;
  const createdTime = overrides.createdTime ?? 1_700_000_000_000 + counter;
  const level = overrides.level ?? 0;
  return {
    memoryId: `mem${level}_test_${counter}_${Math.random().toString(16).slice(2, 10)}`,
    graphKey: 'nba-workflow',
    level,
    createdTime,
    createdAt: formatLocalDate(new Date(createdTime)),
    text: `User: question ${counter}\nAssistant: answer ${counter}`,
    turnId: level === 0 ? `msg_${counter}` : null,
    charRange: [0, 40],
    parentIds: [],
    mentions: [],
    keyFindings: [],
    toolsUsed: [],
    topics: [],
    author: level === 0 ? null : 'llm',
    embedding: null,
    embeddingModel: null,
    stale: false,
    staleTime: null,
    ...overrides,
  };
}
