import { randomUUID } from 'node:crypto';
import { generateThreadId } from '../../src/threads/sortable-id.generator';
import { MemoryRecord } from '../../src/memory/memory-record';
import { MemoryRepository } from '../../src/memory/memory.repository';
import { memoryRecord } from '../support/memory-records';

export interface MemoryRepositoryFixture {
  repository: MemoryRepository;
  /** Makes the thread exist in the store where the adapter needs it (SQLite: records reference their thread). */
  createThread(workspace: string, threadId: string, graphKey: string): Promise<void>;
  /** Deletes the thread itself where the adapter keeps it (SQLite); the service deletes its memory first. */
  deleteThread(workspace: string, threadId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The behaviour every MemoryRepository adapter must have (SQLite always; ArangoDB when ARANGO_URL is
 * set). Each test works in its own workspace and threads; the retention test uses creation times far
 * in the past that no other test uses.
 */
export function describeMemoryRepositoryContract(name: string, create: () => Promise<MemoryRepositoryFixture>): void {
  describe(`MemoryRepository contract: ${name}`, () => {
    let fixture: MemoryRepositoryFixture;
    let repository: MemoryRepository;
    let workspace: string;

    beforeEach(async () => {
      fixture = await create();
      repository = fixture.repository;
      workspace = `ws-${randomUUID()}`;
    });

    afterEach(async () => {
      await fixture.close();
    });

    async function newThread(inWorkspace = workspace, graphKey = 'nba-workflow'): Promise<string> {
      const threadId = generateThreadId();
      await fixture.createThread(inWorkspace, threadId, graphKey);
      return threadId;
    }

    const withoutVectors = (records: MemoryRecord[]) =>
      records.map(({ embedding, ...rest }) => ({ ...rest, hasEmbedding: embedding !== null }));

    it('stores a record with every field and reads it back', async () => {
      const threadId = await newThread();
      const record = memoryRecord({
        workspace,
        threadId,
        level: 1,
        text: 'Summary: the user asked about "fetch-api"; it calls `https://api.nba.com` — and it\'s fine. FOR x IN y REMOVE x IN y',
        charRange: [1200, 9800],
        parentIds: ['mem0_a', 'mem0_b'],
        mentions: [
          { key: 'fetch-api', fingerprint: 'f1' },
          { key: 'root', fingerprint: 'r1' },
        ],
        keyFindings: ['fetch-api has no retry'],
        toolsUsed: ['read_node_detail'],
        topics: ['error handling'],
        author: 'extractive',
        embedding: Float32Array.from([0.25, -0.5, 0.125]),
        embeddingModel: 'local-hash-v1-512',
      });
      expect(await repository.insert(record)).toBe(true);
      const [stored] = await repository.list(workspace, threadId);
      expect(stored).toEqual({ ...record, embedding: expect.any(Float32Array) });
      expect(Array.from(stored.embedding ?? [])).toEqual([0.25, -0.5, 0.125]);
    });

    it('stores a record once: a second insert with the same id changes nothing', async () => {
      const threadId = await newThread();
      const record = memoryRecord({ workspace, threadId, text: 'first' });
      expect(await repository.insert(record)).toBe(true);
      expect(await repository.insert({ ...record, text: 'second' })).toBe(false);
      expect((await repository.list(workspace, threadId)).map((stored) => stored.text)).toEqual(['first']);
    });

    it('lists a thread oldest first and filters by level and by an inclusive time window', async () => {
      const threadId = await newThread();
      const other = await newThread();
      const at = (createdTime: number, level: 0 | 1 | 2) => memoryRecord({ workspace, threadId, createdTime, level });
      const records = [
        at(1_700_000_003_000, 0),
        at(1_700_000_001_000, 0),
        at(1_700_000_002_000, 1),
        at(1_700_000_004_000, 2),
      ];
      for (const record of records) await repository.insert(record);
      await repository.insert(memoryRecord({ workspace, threadId: other }));

      const times = (list: MemoryRecord[]) => list.map((record) => record.createdTime);
      expect(times(await repository.list(workspace, threadId))).toEqual([
        1_700_000_001_000, 1_700_000_002_000, 1_700_000_003_000, 1_700_000_004_000,
      ]);
      expect(times(await repository.list(workspace, threadId, { level: 0 }))).toEqual([
        1_700_000_001_000, 1_700_000_003_000,
      ]);
      expect(
        times(await repository.list(workspace, threadId, { since: 1_700_000_002_000, until: 1_700_000_003_000 })),
      ).toEqual([1_700_000_002_000, 1_700_000_003_000]);
      expect(times(await repository.list(workspace, threadId, { level: 2, until: 1_700_000_003_999 }))).toEqual([]);
      expect(await repository.list(workspace, generateThreadId())).toEqual([]);
    });

    it('keeps workspaces apart: another workspace neither reads, embeds, marks nor deletes', async () => {
      const threadId = await newThread();
      const record = memoryRecord({ workspace, threadId, mentions: [{ key: 'root', fingerprint: 'r1' }] });
      await repository.insert(record);
      const stranger = `${workspace}-other`;
      expect(await repository.list(stranger, threadId)).toEqual([]);
      await repository.setEmbedding(stranger, record.memoryId, Float32Array.from([1]), 'm');
      expect(await repository.markStale(stranger, 'nba-workflow', [{ key: 'root', fingerprint: 'r1' }], 5)).toBe(0);
      expect(await repository.mentions(stranger, 'nba-workflow', 'all')).toEqual([]);
      expect(await repository.deleteThread(stranger, threadId)).toBe(0);
      expect(withoutVectors(await repository.list(workspace, threadId))).toEqual(withoutVectors([record]));
    });

    it('records an embedding computed after the record was stored', async () => {
      const threadId = await newThread();
      const record = memoryRecord({ workspace, threadId });
      await repository.insert(record);
      await repository.setEmbedding(workspace, record.memoryId, Float32Array.from([0.5, 0.5]), 'scripted-embedding');
      const [stored] = await repository.list(workspace, threadId);
      expect(Array.from(stored.embedding ?? [])).toEqual([0.5, 0.5]);
      expect(stored.embeddingModel).toBe('scripted-embedding');
      await expect(
        repository.setEmbedding(workspace, 'mem0_gone', Float32Array.from([1]), 'm'),
      ).resolves.toBeUndefined();
    });

    it('reads without vectors when asked, and only the records lacking an embedding of a model', async () => {
      const threadId = await newThread();
      const none = memoryRecord({ workspace, threadId, createdTime: 1_700_000_000_001 });
      const other = memoryRecord({
        workspace,
        threadId,
        createdTime: 1_700_000_000_002,
        embedding: Float32Array.from([1, 0]),
        embeddingModel: 'old-model',
      });
      const current = memoryRecord({
        workspace,
        threadId,
        createdTime: 1_700_000_000_003,
        embedding: Float32Array.from([0, 1]),
        embeddingModel: 'model-b',
      });
      for (const record of [none, other, current]) await repository.insert(record);
      const light = await repository.list(workspace, threadId, { vectors: false });
      expect(light.map((record) => [record.memoryId, record.embedding, record.text])).toEqual(
        [none, other, current].map((record) => [record.memoryId, null, record.text]),
      );
      const missing = await repository.list(workspace, threadId, { needingEmbeddingBy: 'model-b', vectors: false });
      expect(missing.map((record) => record.memoryId)).toEqual([none.memoryId, other.memoryId]);
    });

    it('lists the vectors of one model for recall, and reads chosen records by id', async () => {
      const threadId = await newThread();
      const first = memoryRecord({
        workspace,
        threadId,
        createdTime: 1_700_000_000_001,
        embedding: Float32Array.from([1, 0]),
        embeddingModel: 'model-b',
      });
      const summary = memoryRecord({
        workspace,
        threadId,
        level: 1,
        createdTime: 1_700_000_000_002,
        embedding: Float32Array.from([0, 1]),
        embeddingModel: 'model-b',
      });
      const older = memoryRecord({
        workspace,
        threadId,
        createdTime: 1_700_000_000_003,
        embedding: Float32Array.from([1, 1]),
        embeddingModel: 'old-model',
      });
      const bare = memoryRecord({ workspace, threadId, createdTime: 1_700_000_000_004 });
      for (const record of [first, summary, older, bare]) await repository.insert(record);
      const vectors = await repository.vectors(workspace, threadId, 'model-b');
      expect(vectors.map((vector) => [vector.memoryId, vector.level, Array.from(vector.embedding)])).toEqual([
        [first.memoryId, 0, [1, 0]],
        [summary.memoryId, 1, [0, 1]],
      ]);
      expect(await repository.vectors(`${workspace}-other`, threadId, 'model-b')).toEqual([]);
      const chosen = await repository.list(workspace, threadId, {
        memoryIds: [bare.memoryId, summary.memoryId],
        vectors: false,
      });
      expect(chosen.map((record) => record.memoryId)).toEqual([summary.memoryId, bare.memoryId]);
    });

    it('advances the thread cursor with each summary, never backwards, and not with turns', async () => {
      const threadId = await newThread();
      expect(await repository.cursor(workspace, threadId)).toEqual({ level1End: 0, level2End: 0 });
      await repository.insert(memoryRecord({ workspace, threadId, level: 0, charRange: [0, 5000] }));
      expect(await repository.cursor(workspace, threadId)).toEqual({ level1End: 0, level2End: 0 });
      await repository.insert(memoryRecord({ workspace, threadId, level: 1, charRange: [0, 8000] }));
      await repository.insert(memoryRecord({ workspace, threadId, level: 1, charRange: [8000, 16000] }));
      await repository.insert(memoryRecord({ workspace, threadId, level: 2, charRange: [0, 16000] }));
      await repository.insert(memoryRecord({ workspace, threadId, level: 1, charRange: [0, 4000] }));
      expect(await repository.cursor(workspace, threadId)).toEqual({ level1End: 16000, level2End: 16000 });
      expect(await repository.cursor(`${workspace}-other`, threadId)).toEqual({ level1End: 0, level2End: 0 });
    });

    it('lists the mentions of records that are not stale, all or for some nodes, each pair once', async () => {
      const threadId = await newThread();
      const otherGraphThread = await newThread(workspace, 'other-graph');
      await repository.insert(
        memoryRecord({
          workspace,
          threadId,
          mentions: [
            { key: 'root', fingerprint: 'r1' },
            { key: 'fetch-api', fingerprint: 'f1' },
          ],
        }),
      );
      await repository.insert(
        memoryRecord({ workspace, threadId, level: 1, mentions: [{ key: 'root', fingerprint: 'r1' }] }),
      );
      await repository.insert(
        memoryRecord({
          workspace,
          threadId,
          mentions: [{ key: 'return', fingerprint: 'x1' }],
          stale: true,
          staleTime: 1,
        }),
      );
      await repository.insert(
        memoryRecord({
          workspace,
          threadId: otherGraphThread,
          graphKey: 'other-graph',
          mentions: [{ key: 'root', fingerprint: 'o1' }],
        }),
      );
      const sorted = (mentions: Array<{ key: string; fingerprint: string }>) =>
        [...mentions].sort((a, b) => a.key.localeCompare(b.key));
      expect(sorted(await repository.mentions(workspace, 'nba-workflow', 'all'))).toEqual([
        { key: 'fetch-api', fingerprint: 'f1' },
        { key: 'root', fingerprint: 'r1' },
      ]);
      expect(await repository.mentions(workspace, 'nba-workflow', ['root', 'unknown'])).toEqual([
        { key: 'root', fingerprint: 'r1' },
      ]);
      expect(await repository.mentions(workspace, 'nba-workflow', [])).toEqual([]);
    });

    it('marks stale the records mentioning an outdated (node, fingerprint), once each, with the time', async () => {
      const threadId = await newThread();
      const both = memoryRecord({
        workspace,
        threadId,
        mentions: [
          { key: 'root', fingerprint: 'r1' },
          { key: 'fetch-api', fingerprint: 'f1' },
        ],
      });
      const newer = memoryRecord({ workspace, threadId, level: 1, mentions: [{ key: 'root', fingerprint: 'r2' }] });
      const unrelated = memoryRecord({ workspace, threadId, mentions: [{ key: 'return', fingerprint: 'x1' }] });
      for (const record of [both, newer, unrelated]) await repository.insert(record);

      const outdated = [
        { key: 'root', fingerprint: 'r1' },
        { key: 'fetch-api', fingerprint: 'f1' },
      ];
      expect(await repository.markStale(workspace, 'other-graph', outdated, 7_000)).toBe(0);
      expect(await repository.markStale(workspace, 'nba-workflow', outdated, 7_000)).toBe(1);
      expect(await repository.markStale(workspace, 'nba-workflow', outdated, 8_000)).toBe(0);
      expect(await repository.markStale(workspace, 'nba-workflow', [], 8_000)).toBe(0);
      const state = Object.fromEntries(
        (await repository.list(workspace, threadId)).map((record) => [
          record.memoryId,
          [record.stale, record.staleTime],
        ]),
      );
      expect(state).toEqual({
        [both.memoryId]: [true, 7_000],
        [newer.memoryId]: [false, null],
        [unrelated.memoryId]: [false, null],
      });
    });

    it("deletes a thread's records and cursor, leaving other threads alone", async () => {
      const threadId = await newThread();
      const other = await newThread();
      await repository.insert(memoryRecord({ workspace, threadId, mentions: [{ key: 'root', fingerprint: 'r1' }] }));
      await repository.insert(memoryRecord({ workspace, threadId, level: 1, charRange: [0, 9000] }));
      await repository.insert(memoryRecord({ workspace, threadId: other }));
      expect(await repository.deleteThread(workspace, threadId)).toBe(2);
      expect(await repository.list(workspace, threadId)).toEqual([]);
      expect(await repository.cursor(workspace, threadId)).toEqual({ level1End: 0, level2End: 0 });
      expect(await repository.mentions(workspace, 'nba-workflow', 'all')).toEqual([]);
      expect(await repository.list(workspace, other)).toHaveLength(1);
      expect(await repository.deleteThread(workspace, threadId)).toBe(0);
    });

    it('carries stale up: the summaries built on a marked record are marked, level 1 then level 2, even without the node', async () => {
      const threadId = await newThread();
      const turn = memoryRecord({ workspace, threadId, mentions: [{ key: 'root', fingerprint: 'r1' }] });
      const sibling = memoryRecord({ workspace, threadId, charRange: [40, 80] });
      const level1 = memoryRecord({ workspace, threadId, level: 1, parentIds: [turn.memoryId, sibling.memoryId] });
      const otherLevel1 = memoryRecord({ workspace, threadId, level: 1, parentIds: [sibling.memoryId] });
      const level2 = memoryRecord({ workspace, threadId, level: 2, parentIds: [level1.memoryId] });
      for (const record of [turn, sibling, level1, otherLevel1, level2]) await repository.insert(record);
      const staleOf = async () =>
        Object.fromEntries(
          (await repository.list(workspace, threadId)).map((record) => [record.memoryId, record.staleTime]),
        );

      expect(await repository.markStale(workspace, 'nba-workflow', [{ key: 'root', fingerprint: 'r1' }], 9)).toBe(3);
      expect(await staleOf()).toEqual({
        [turn.memoryId]: 9,
        [sibling.memoryId]: null,
        [level1.memoryId]: 9,
        [otherLevel1.memoryId]: null,
        [level2.memoryId]: 9,
      });
      expect(await repository.markRecordsStale(`${workspace}-other`, [sibling.memoryId], 11)).toBe(0);
      expect(await repository.markRecordsStale(workspace, [sibling.memoryId], 11)).toBe(2);
      expect(await repository.markRecordsStale(workspace, [sibling.memoryId], 12)).toBe(0);
      expect(await repository.markRecordsStale(workspace, [], 12)).toBe(0);
      expect(await staleOf()).toMatchObject({
        [sibling.memoryId]: 11,
        [otherLevel1.memoryId]: 11,
        [level1.memoryId]: 9,
      });
    });

    it('refuses the records of a thread whose memory and thread were deleted (an update in flight): nothing comes back', async () => {
      const threadId = await newThread();
      await repository.insert(memoryRecord({ workspace, threadId }));
      await repository.deleteThread(workspace, threadId);
      await fixture.deleteThread(workspace, threadId);
      for (const level of [0, 1] as const) {
        await expect(
          repository.insert(memoryRecord({ workspace, threadId, level, charRange: [0, 100] })),
        ).rejects.toMatchObject({ code: 'not_found' });
      }
      expect(await repository.list(workspace, threadId)).toEqual([]);
      expect(await repository.cursor(workspace, threadId)).toEqual({ level1End: 0, level2End: 0 });
    });

    it('trims the records of one level created before a date in every workspace, level 1 only where level 2 covers it, and keeps the cursor', async () => {
      const threadId = await newThread();
      const elsewhere = `${workspace}-b`;
      const otherThread = await newThread(elsewhere);
      const old1 = memoryRecord({
        workspace,
        threadId,
        level: 1,
        createdTime: 1_000,
        charRange: [0, 8000],
        mentions: [{ key: 'root', fingerprint: 'r1' }],
      });
      const uncovered1 = memoryRecord({ workspace, threadId, level: 1, createdTime: 1_100, charRange: [8000, 16000] });
      const recent1 = memoryRecord({ workspace, threadId, level: 1, createdTime: 3_000, charRange: [16000, 24000] });
      const old2 = memoryRecord({ workspace, threadId, level: 2, createdTime: 3_000, charRange: [0, 8000] });
      const old0 = memoryRecord({ workspace, threadId, level: 0, createdTime: 1_000 });
      const coveredElsewhere = memoryRecord({
        workspace: elsewhere,
        threadId: otherThread,
        level: 1,
        createdTime: 1_500,
        charRange: [0, 500],
      });
      const elsewhere2 = memoryRecord({
        workspace: elsewhere,
        threadId: otherThread,
        level: 2,
        createdTime: 1_500,
        charRange: [0, 500],
      });
      for (const record of [old1, uncovered1, recent1, old2, old0, coveredElsewhere, elsewhere2])
        await repository.insert(record);

      expect(await repository.trim(1, 2_000)).toBe(2);
      expect((await repository.list(workspace, threadId)).map((record) => record.memoryId).sort()).toEqual(
        [old0.memoryId, uncovered1.memoryId, recent1.memoryId, old2.memoryId].sort(),
      );
      expect((await repository.list(elsewhere, otherThread)).map((record) => record.memoryId)).toEqual([
        elsewhere2.memoryId,
      ]);
      expect(await repository.mentions(workspace, 'nba-workflow', 'all')).toEqual([]);
      expect(await repository.cursor(workspace, threadId)).toEqual({ level1End: 24000, level2End: 8000 });
      expect(await repository.trim(2, 2_000)).toBe(1);
      expect((await repository.list(elsewhere, otherThread)).map((record) => record.memoryId)).toEqual([]);
    });
  });
}
