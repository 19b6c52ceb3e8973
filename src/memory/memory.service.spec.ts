import { MemoryTestbed } from '../../test/support/memory-testbed';
import { AppError } from '../errors/app-error';
import { MemoryRecord } from './memory-record';
import type { MemoryRepository } from './memory.repository';
import { MemoryService } from './memory.service';
import { MemoryUpdateQueue } from './memory-update.queue';
import { MemoryStalenessListener } from './staleness/memory-staleness.listener';
import { MemoryStalenessMarker } from './staleness/memory-staleness.marker';
import { GraphChangeWatch } from './staleness/graph-change.watch';
import { ThreadMemoryWriter } from './thread-memory.writer';

const GRAPH = 'nba-workflow';

describe(MemoryService.name, () => {
  let bed: MemoryTestbed;
  let listener: MemoryStalenessListener;
  let queue: MemoryUpdateQueue;

  /** The service as MemoryModule builds it; the background update waits (for a minute): only what runSettled records now counts. */
  const serviceOf = (repository: MemoryRepository = bed.repository, writer: ThreadMemoryWriter = bed.writer) => {
    queue = new MemoryUpdateQueue((principal, threadId, signal) => writer.update(principal, threadId, signal), {
      idleMs: 60_000,
      maxDeferMs: 60_000,
    });
    return new MemoryService(bed.threads, repository, queue, writer);
  };
  const writerWith = (repository: MemoryRepository, changes?: GraphChangeWatch) =>
    new ThreadMemoryWriter(
      {
        repository,
        threads: bed.threads,
        graphs: bed.graphs,
        embeddings: bed.embeddings,
        summarizer: { summarize: () => Promise.reject(new Error('no summary expected')) },
        tokenTracker: bed.tokenTracker,
        ...(changes ? { changes } : {}),
      },
      { level1EveryChars: 1_000_000, level2EveryChars: 1_000_000 },
    );
  /** The repository, with `before` run ahead of each insert. */
  const insertingAfter = (before: (record: MemoryRecord) => Promise<void>): MemoryRepository => {
    const repository = bed.repository;
    return Object.assign(Object.create(repository) as MemoryRepository, {
      insert: async (record: MemoryRecord) => {
        await before(record);
        return repository.insert(record);
      },
    });
  };

  /** The repository, with fetch-api's content changed (and the staleness listener idle) before its first insert. */
  const editingFetchApiBeforeTheFirstInsert = (): MemoryRepository => {
    const source = bed.graphs.forWorkspace('default');
    let edited = false;
    return insertingAfter(async () => {
      if (edited) return;
      edited = true;
      const fetchApi = (await source.getNodeByKey(GRAPH, 'fetch-api'))!;
      await source.updateNode(GRAPH, { ...fetchApi, data: { changed: true } });
      await listener.whenIdle();
    });
  };

  beforeEach(async () => {
    bed = await MemoryTestbed.create();
    listener = new MemoryStalenessListener(bed.notifier, new MemoryStalenessMarker(bed.repository, bed.graphs));
  });
  afterEach(async () => {
    await queue?.shutdown(0);
    await listener.onModuleDestroy();
    await bed.close();
  });

  it("records a run's turns as it settles: a node saved right after, before the background update, makes the turn's record stale", async () => {
    const memory = serviceOf();
    const thread = await bed.conversation([{ user: 'What does fetch-api do?', answer: 'It calls the NBA API.' }]);
    memory.runStarted();
    memory.runSettled(bed.principal, thread.threadId);
    await memory.whenTurnsRecorded();

    const source = bed.graphs.forWorkspace('default');
    const fetchApi = (await source.getNodeByKey(GRAPH, 'fetch-api'))!;
    await source.updateNode(GRAPH, { ...fetchApi, process: 'return fetch("https://example.org");' });
    await listener.whenIdle();
    expect(queue.size.pending).toBe(1); // the background update has not run
    const [record] = await bed.repository.list('default', thread.threadId);
    expect(record).toMatchObject({ level: 0, stale: true, staleTime: expect.any(Number) });
    expect(record.mentions.map((mention) => mention.key)).toEqual(['fetch-api']);
  });

  it('marks a record stale when its node changed between the read of its fingerprint and its write (the change was checked before the record existed)', async () => {
    // The staleness listener's check, awaited inside, finds no record mentioning fetch-api yet.
    const writer = writerWith(editingFetchApiBeforeTheFirstInsert());
    const thread = await bed.conversation([{ user: 'What does fetch-api do?', answer: 'It calls the NBA API.' }]);
    expect(await writer.recordTurns(bed.principal, thread.threadId)).toHaveLength(1);
    const [record] = await bed.repository.list('default', thread.threadId);
    expect(record.stale).toBe(true);
  });

  it('hands the background update what the turn recording read and wrote: it embeds the new turn without reading it back', async () => {
    queue = new MemoryUpdateQueue(
      (principal, threadId, signal, recorded) => bed.writer.update(principal, threadId, signal, recorded),
      { idleMs: 0, maxDeferMs: 0 },
    );
    const memory = new MemoryService(bed.threads, bed.repository, queue, bed.writer);
    const thread = await bed.conversation([{ user: 'What does fetch-api do?', answer: 'It calls the NBA API.' }]);
    const load = jest.spyOn(bed.threads, 'load');
    const cursor = jest.spyOn(bed.repository, 'cursor');
    memory.runStarted();
    memory.runSettled(bed.principal, thread.threadId);
    await memory.whenTurnsRecorded();
    await queue.whenIdle();
    expect(load).toHaveBeenCalledTimes(1); // the recording's; the update's came from it
    expect(cursor).toHaveBeenCalledTimes(1);
    const [record] = await bed.repository.list('default', thread.threadId);
    expect(record).toMatchObject({ level: 0, embeddingModel: bed.embeddings?.modelName });
    expect(record.embedding).toHaveLength(512);
  });

  describe('with the graphs’ changes watched (GraphChangeWatch)', () => {
    /** How many times the graph's nodes are read by key (the fingerprints of a record's mentions). */
    const countingNodeReads = () => {
      const reads: string[][] = [];
      const forWorkspace = bed.graphs.forWorkspace.bind(bed.graphs);
      jest.spyOn(bed.graphs, 'forWorkspace').mockImplementation((workspace: string) => {
        const source = forWorkspace(workspace);
        const getNodesByKeys = source.getNodesByKeys.bind(source);
        return Object.assign(Object.create(source) as typeof source, {
          getNodesByKeys: (graphKey: string, keys: string[]) => {
            reads.push(keys);
            return getNodesByKeys(graphKey, keys);
          },
        });
      });
      return reads;
    };

    it('reads a turn’s nodes once when no change of the graph was heard while its record was written', async () => {
      const watch = new GraphChangeWatch(bed.notifier, true);
      const thread = await bed.conversation([{ user: 'What does fetch-api do?', answer: 'It calls the NBA API.' }]);
      const reads = countingNodeReads();
      expect(await writerWith(bed.repository, watch).recordTurns(bed.principal, thread.threadId)).toHaveLength(1);
      expect(reads).toEqual([expect.arrayContaining(['fetch-api'])]);
      const [record] = await bed.repository.list('default', thread.threadId);
      expect(record.stale).toBe(false);
      watch.onModuleDestroy();
    });

    it('still marks a record stale when its node changed between the read of its fingerprint and its write', async () => {
      const watch = new GraphChangeWatch(bed.notifier, true);
      const writer = writerWith(editingFetchApiBeforeTheFirstInsert(), watch);
      const thread = await bed.conversation([{ user: 'What does fetch-api do?', answer: 'It calls the NBA API.' }]);
      expect(await writer.recordTurns(bed.principal, thread.threadId)).toHaveLength(1);
      const [record] = await bed.repository.list('default', thread.threadId);
      expect(record.stale).toBe(true);
      watch.onModuleDestroy();
    });

    it('reads the nodes again after every write when other instances may change the graph (REDIS_URL)', async () => {
      const watch = new GraphChangeWatch(bed.notifier, false);
      const thread = await bed.conversation([{ user: 'What does fetch-api do?', answer: 'It calls the NBA API.' }]);
      const reads = countingNodeReads();
      await writerWith(bed.repository, watch).recordTurns(bed.principal, thread.threadId);
      expect(reads).toHaveLength(2);
      watch.onModuleDestroy();
    });

    it('counts stored changes and imports of each graph, remote ones too, never the live overlay’s', () => {
      const watch = new GraphChangeWatch(bed.notifier, true);
      const mark = watch.mark('default', GRAPH);
      bed.notifier.notify({ kind: 'live', workspace: 'default', graphKey: GRAPH });
      bed.notifier.notify({ kind: 'stored', workspace: 'default', graphKey: 'other-graph', nodeKeys: ['a'] });
      expect(watch.changedSince('default', GRAPH, mark)).toBe(false);
      bed.notifier.notify({ kind: 'stored', workspace: 'default', graphKey: GRAPH, nodeKeys: ['a'], remote: true });
      expect(watch.changedSince('default', GRAPH, mark)).toBe(true);
      const next = watch.mark('default', GRAPH);
      bed.notifier.notify({ kind: 'imported', workspace: 'default', graphKey: GRAPH });
      expect(watch.changedSince('default', GRAPH, next)).toBe(true);
      watch.onModuleDestroy();
      bed.notifier.notify({ kind: 'imported', workspace: 'default', graphKey: GRAPH });
      expect(watch.mark('default', GRAPH)).toBe(next + 1);
    });
  });

  it('deletes the memory first: after a failure in between the thread is still there, and a retry deletes both', async () => {
    const thread = await bed.conversation([{ user: 'What does root do?', answer: 'It starts everything.' }]);
    await bed.writer.update(bed.principal, thread.threadId);
    let failures = 1;
    const flaky = Object.assign(Object.create(bed.repository) as MemoryRepository, {
      deleteThread: (workspace: string, threadId: string) =>
        failures-- > 0
          ? Promise.reject(new Error('store unreachable'))
          : bed.repository.deleteThread(workspace, threadId),
    });
    const memory = serviceOf(flaky);
    await expect(memory.deleteThread(bed.principal, thread.threadId)).rejects.toThrow('store unreachable');
    await expect(bed.threads.load(bed.principal, thread.threadId)).resolves.toMatchObject({
      threadId: thread.threadId,
    });

    await memory.deleteThread(bed.principal, thread.threadId);
    await expect(bed.threads.load(bed.principal, thread.threadId)).rejects.toMatchObject({ code: 'not_found' });
    expect(await bed.repository.list('default', thread.threadId)).toEqual([]);
    await expect(memory.deleteThread(bed.principal, thread.threadId)).rejects.toBeInstanceOf(AppError);
  });

  it('lets an update in flight when its thread is deleted write nothing back, and end quietly', async () => {
    let memory: MemoryService | undefined;
    let deleted = false;
    const writer = writerWith(
      insertingAfter(async (record) => {
        if (deleted) return;
        deleted = true;
        await memory!.deleteThread(bed.principal, record.threadId);
      }),
    );
    memory = serviceOf(bed.repository, writer);
    const thread = await bed.conversation([
      { user: 'What does root do?', answer: 'It starts everything.' },
      { user: 'And fetch-api?', answer: 'It calls the NBA API.' },
    ]);
    await expect(writer.update(bed.principal, thread.threadId)).resolves.toMatchObject({ turns: 0 });
    expect(await bed.repository.list('default', thread.threadId)).toEqual([]);
  });
});
