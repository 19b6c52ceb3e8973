import { userMessage } from '../../test/support/thread-messages';
import { ThreadRecordCache } from './thread-record.cache';
import { EMPTY_USAGE, ThreadRecord } from './thread.types';

const record = (threadId: string, revision = 0): ThreadRecord =>
  Object.freeze({
    threadId,
    workspace: 'w',
    userId: 'u',
    graphKey: 'g',
    title: 't',
    type: 'chat',
    messages: Object.freeze([userMessage(`question of ${threadId} é ✓`)]) as ThreadRecord['messages'],
    pendingInterrupt: null,
    revision,
    usage: EMPTY_USAGE,
    createdTime: 0,
    lastUpdatedTime: 0,
  });

describe(ThreadRecordCache.name, () => {
  let now: number;
  const cache = (maxEntries: number) => new ThreadRecordCache({ maxEntries, packAfterIdleMs: 1_000, clock: () => now });

  beforeEach(() => {
    now = 0;
  });

  it('evicts the least recently used record beyond its size', () => {
    const subject = cache(2);
    subject.set(record('a'));
    subject.set(record('b'));
    subject.get('a'); // a is now the most recent
    subject.set(record('c'));
    expect(subject.get('b')).toBeUndefined();
    expect(subject.get('a')?.threadId).toBe('a');
    expect(subject.get('c')?.threadId).toBe('c');
    expect(subject.size).toBe(2);
  });

  it('replaces a record in place and forgets deleted ones', () => {
    const subject = cache(2);
    subject.set(record('a', 1));
    subject.set(record('a', 2));
    expect(subject.size).toBe(1);
    expect(subject.get('a')?.revision).toBe(2);
    subject.delete('a');
    expect(subject.get('a')).toBeUndefined();
  });

  it('stores nothing with a size of 0', () => {
    const subject = cache(0);
    subject.set(record('a'));
    expect(subject.size).toBe(0);
  });

  it('shares the record while in use, deflates it once idle, and reads back an equal frozen record', async () => {
    const subject = cache(2);
    const original = record('a', 3);
    subject.set(original);
    now = 500;
    await subject.packIdle();
    expect(await subject.read(subject.get('a')!)).toBe(original); // used at 500: still hot

    now = 1_600;
    await subject.packIdle();
    const cached = subject.get('a')!;
    expect(cached.revision).toBe(3);
    const unpacked = await subject.read(cached);
    expect(unpacked).not.toBe(original);
    expect(unpacked).toEqual(original);
    expect(Object.isFrozen(unpacked)).toBe(true);
    expect(Object.isFrozen(unpacked.messages)).toBe(true);
  });

  it('keeps a record that was replaced or used while it was being deflated', async () => {
    const subject = cache(2);
    const b = record('b', 1);
    subject.set(record('a', 1));
    subject.set(b);
    now = 2_000;
    const packing = subject.packIdle();
    const replacement = record('a', 2);
    subject.set(replacement);
    subject.get('b');
    await packing;
    expect(await subject.read(subject.get('a')!)).toBe(replacement);
    expect(await subject.read(subject.get('b')!)).toBe(b);
  });
});
