import { Database } from 'arangojs';
import { AqlQuery, isAqlQuery } from 'arangojs/aql';
import { containsDeep, referencedBindVars } from '../../../test/support/aql-bind-vars';
import { memoryRecord } from '../../../test/support/memory-records';
import { ArangoMemoryDocumentMapper } from './arango-memory-document.mapper';
import { ARANGO_MEMORY_NAMES } from './arango-memory.names';
import { ArangoMemoryQueries } from './arango-memory.queries';

/** Values a caller controls, crafted to break out of an AQL string. */
const HOSTILE = {
  workspace: 'ws" || true || "',
  threadId: 'ai_x" || true || "',
  graphKey: 'g"; REMOVE "a" IN nodius_ai_memory //',
  memoryId: "mem0_' OR 1==1 //",
  nodeKey: 'root` RETURN 1 //',
  text: 'FOR m IN nodius_ai_memory REMOVE m IN nodius_ai_memory',
  model: 'model") OR true OR ("',
};

// Building queries needs only collection handles: no request is made, no server is needed.
const db = new Database({ url: 'http://127.0.0.1:1', databaseName: 'unused' });
const queries = new ArangoMemoryQueries({
  records: db.collection(ARANGO_MEMORY_NAMES.records),
  cursors: db.collection(ARANGO_MEMORY_NAMES.cursors),
});

const document = ArangoMemoryDocumentMapper.toDocument(
  memoryRecord({
    workspace: HOSTILE.workspace,
    threadId: HOSTILE.threadId,
    graphKey: HOSTILE.graphKey,
    memoryId: HOSTILE.memoryId,
    level: 1,
    text: HOSTILE.text,
    mentions: [{ key: HOSTILE.nodeKey, fingerprint: 'f' }],
  }),
);
const outdated = [{ key: HOSTILE.nodeKey, fingerprint: 'f' }];

/** One of each query the repository sends, built from hostile values; the workspace-scoped ones first. */
function scopedQueries(): Record<string, AqlQuery> {
  const { workspace, threadId, graphKey, memoryId } = HOSTILE;
  return {
    insert: queries.insert(document, 'mc_1'),
    setEmbedding: queries.setEmbedding(workspace, memoryId, [0.5], HOSTILE.model),
    list: queries.list(workspace, threadId, {
      level: 1,
      since: 1,
      until: 2,
      memoryIds: [memoryId],
      needingEmbeddingBy: HOSTILE.model,
    }),
    vectors: queries.vectors(workspace, threadId, HOSTILE.model),
    cursor: queries.cursor(workspace, 'mc_1'),
    allMentions: queries.allMentions(workspace, graphKey),
    mentionsOf: queries.mentionsOf(workspace, graphKey, [HOSTILE.nodeKey]),
    markStale: queries.markStale(workspace, graphKey, outdated, 5),
    markRecordsStale: queries.markRecordsStale(workspace, [memoryId], 5),
    deleteThread: queries.deleteThread(workspace, threadId, 'mc_1', 5),
  };
}

const everyQuery = (): Record<string, AqlQuery> => ({
  ...scopedQueries(),
  trimLevel1: queries.trim(1, 1_000),
  trimLevel2: queries.trim(2, 1_000),
  forgetDeletedThreads: queries.forgetDeletedThreads(1_000),
});
const squash = (query: AqlQuery): string => query.query.replace(/\s+/g, ' ').trim();

describe(ArangoMemoryQueries.name, () => {
  describe.each(Object.entries(everyQuery()))('%s', (_name, query) => {
    it('is an AqlQuery whose text refers only to bind variables it defines, and uses all of them', () => {
      expect(isAqlQuery(query)).toBe(true);
      expect(referencedBindVars(query.query)).toEqual(new Set(Object.keys(query.bindVars)));
    });

    it('holds no string literal at all: every value is bound', () => {
      for (const value of Object.values(HOSTILE)) expect(query.query).not.toContain(value);
      expect(query.query).not.toMatch(/"[^"]*"|'[^']*'|`[^`]*`|´[^´]*´/);
    });

    it('reaches collections through @@ bind variables only', () => {
      const collectionVars = Object.entries(query.bindVars).filter(([name]) => name.startsWith('@'));
      expect(collectionVars.length).toBeGreaterThan(0);
      for (const [, value] of collectionVars) expect(Object.values(ARANGO_MEMORY_NAMES)).toContain(value);
      for (const name of Object.values(ARANGO_MEMORY_NAMES)) expect(query.query).not.toContain(name);
    });
  });

  describe.each(Object.entries(scopedQueries()))('%s', (_name, query) => {
    it('is scoped to the workspace (filters on it, or writes it)', () => {
      expect(containsDeep(query.bindVars, HOSTILE.workspace)).toBe(true);
      expect(squash(query)).toMatch(/\.workspace == @\w+|workspace: @\w+/);
    });
  });

  it('writes a record at most once and advances the cursor only for a summary that was written', () => {
    const text = squash(queries.insert(document, 'mc_1'));
    expect(text).toContain('OPTIONS { ignoreErrors: true } RETURN NEW._key');
    expect(text).toContain('level1End: MAX([OLD.level1End, written ? ');
    expect(containsDeep(queries.insert(document, 'mc_1').bindVars, HOSTILE.text)).toBe(true);
  });

  it("writes nothing for a thread whose memory was deleted, and touches the thread's cursor so an insert racing with the delete conflicts", () => {
    const text = squash(queries.insert(document, 'mc_1'));
    expect(text).toMatch(
      /^LET cursor = FIRST\(FOR existing IN @@\w+ FILTER existing._key == @\w+ RETURN existing\) LET accepting = cursor == null OR cursor.deleted != true/,
    );
    expect(text).toMatch(/FOR record IN \(accepting \? \[@\w+\] : \[\]\) INSERT record/);
    expect(text).toMatch(/FOR slot IN \(accepting \? \[1\] : \[\]\) UPSERT \{ _key: @\w+ \}/);
    expect(text).toMatch(/RETURN \{ written: written, deleted: !accepting \}$/);
  });

  it("deletes a thread's records and leaves a dated mark on its cursor instead of removing it", () => {
    const query = queries.deleteThread('w', 't', 'mc_1', 42);
    const text = squash(query);
    expect(text).toMatch(/REMOVE record IN @@\w+/);
    expect(text).toMatch(/UPDATE \{ level1End: 0, level2End: 0, deleted: true, deletedTime: @\w+ \}/);
    expect(Object.values(query.bindVars)).toContain(42);
    expect(squash(queries.forgetDeletedThreads(7))).toMatch(
      /FILTER cursor.deleted == true AND cursor.deletedTime < @\w+ REMOVE cursor/,
    );
  });

  it("trims level-1 records only within their thread's level-2 cursor, level-2 records whatever they cover", () => {
    const level1 = squash(queries.trim(1, 1_000));
    expect(level1).toMatch(/^FOR cursor IN @@\w+ FILTER cursor.level2End > 0 AND cursor.deleted != true/);
    expect(level1).toContain('record.workspace == cursor.workspace AND record.threadId == cursor.threadId');
    expect(level1).toContain('record.charRange[1] <= cursor.level2End');
    expect(squash(queries.trim(2, 1_000))).not.toContain('cursor');
  });

  it('carries stale up: the level-1 summaries built on a marked record, then the level-2 ones built on either', () => {
    for (const query of [queries.markStale('w', 'g', outdated, 1), queries.markRecordsStale('w', ['mem0_a'], 1)]) {
      const text = squash(query);
      expect(text).toMatch(/record.level == 1 FILTER LENGTH\(INTERSECTION\(record.parentIds, keys\)\) > 0/);
      expect(text).toContain('LET belowLevel2 = UNION_DISTINCT(keys, level1)');
      expect(text).toMatch(/record.level == 2 FILTER LENGTH\(INTERSECTION\(record.parentIds, belowLevel2\)\) > 0/);
      expect(text).toMatch(
        /FILTER record._key IN UNION_DISTINCT\(belowLevel2, level2\) AND record.workspace == @\w+ AND record.stale != true UPDATE record/,
      );
    }
  });

  it('marks each stale record once, reading before writing', () => {
    const text = squash(queries.markStale(HOSTILE.workspace, HOSTILE.graphKey, outdated, 5));
    expect(text).toMatch(/^LET direct = UNIQUE\( FOR old IN @\w+ FOR record IN @@\w+/);
    expect(text).toContain('FILTER record.stale != true');
    expect(text).toMatch(/UPDATE record WITH \{ stale: true, staleTime: @\w+ \} IN @@\w+ RETURN 1$/);
  });

  it('finds the records of a node through the array index of nodesMentioned', () => {
    expect(squash(queries.mentionsOf('w', 'g', ['root']))).toContain('nodeKey IN record.nodesMentioned[*]');
    expect(squash(queries.markStale('w', 'g', outdated, 1))).toContain('old.key IN record.nodesMentioned[*]');
  });
});
