import { ThreadRecordCache } from './thread-record.cache';
import { EMPTY_USAGE, ThreadRecord } from './thread.types';

const record = (threadId: string, revision = 0): ThreadRecord => ({
  threadId,
  workspace: 'w',
  userId: 'u',
  graphKey: 'g',
  title: 't',
  messages: [],
  pendingInterrupt: null,
  revision,
  usage: EMPTY_USAGE,
  createdTime: 0,
  lastUpdatedTime: 0,
});

describe(ThreadRecordCache.name, () => {
  it('evicts the least recently used record beyond its size', () => {
    const cache = new ThreadRecordCache(2);
    cache.set(record('a'));
    cache.set(record('b'));
    cache.get('a'); // a is now the most recent
    cache.set(record('c'));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.threadId).toBe('a');
    expect(cache.get('c')?.threadId).toBe('c');
    expect(cache.size).toBe(2);
  });

  it('replaces a record in place and forgets deleted ones', () => {
    const cache = new ThreadRecordCache(2);
    cache.set(record('a', 1));
    cache.set(record('a', 2));
    expect(cache.size).toBe(1);
    expect(cache.get('a')?.revision).toBe(2);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
  });

  it('stores nothing with a size of 0', () => {
    const cache = new ThreadRecordCache(0);
    cache.set(record('a'));
    expect(cache.size).toBe(0);
  });
});
