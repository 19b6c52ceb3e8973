import { generateMessageId, generateSortableId, generateThreadId, isThreadIdShape } from './sortable-id.generator';

describe(generateSortableId.name, () => {
  it('makes thread ids that start with ai_ and pass the shape check', () => {
    const id = generateThreadId();
    expect(id).toMatch(/^ai_[0-9a-z]{9}[0-9a-f]{16}$/);
    expect(isThreadIdShape(id)).toBe(true);
    expect(generateMessageId()).toMatch(/^msg_/);
  });

  it('sorts by creation time as plain strings', () => {
    const ids = [generateThreadId(1_700_000_000_000), generateThreadId(1_700_000_000_001), generateThreadId(1_800_000_000_000)];
    expect([...ids].reverse().sort()).toEqual(ids);
  });

  it('never repeats within one millisecond', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => generateThreadId(1_700_000_000_000)));
    expect(ids.size).toBe(10_000);
  });

  it('rejects what cannot be a thread id, accepts the seed format', () => {
    expect(isThreadIdShape('ai_1700000000000_3')).toBe(true);
    expect(isThreadIdShape('th_123')).toBe(false);
    expect(isThreadIdShape('ai_')).toBe(false);
    expect(isThreadIdShape('ai_../../etc')).toBe(false);
  });
});
