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
    deleteThread: queries.deleteThread(workspace, threadId, 'mc_1'),
  };
}

const everyQuery = (): Record<string, AqlQuery> => ({ ...scopedQueries(), trim: queries.trim(1, 1_000) });
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
    expect(text).toMatch(/FOR written IN \(LENGTH\(inserted\) > 0 AND @\w+ > 0 \? \[1\] : \[\]\) UPSERT/);
    expect(text).toContain('level1End: MAX([OLD.level1End, ');
    expect(containsDeep(queries.insert(document, 'mc_1').bindVars, HOSTILE.text)).toBe(true);
  });

  it('marks each stale record once, reading before writing', () => {
    const text = squash(queries.markStale(HOSTILE.workspace, HOSTILE.graphKey, outdated, 5));
    expect(text).toMatch(/^LET keys = UNIQUE\( FOR old IN @\w+ FOR record IN @@\w+/);
    expect(text).toContain('FILTER record.stale != true');
    expect(text).toMatch(/FOR key IN keys UPDATE key WITH \{ stale: true, staleTime: @\w+ \}/);
  });

  it('finds the records of a node through the array index of nodesMentioned', () => {
    expect(squash(queries.mentionsOf('w', 'g', ['root']))).toContain('nodeKey IN record.nodesMentioned[*]');
    expect(squash(queries.markStale('w', 'g', outdated, 1))).toContain('old.key IN record.nodesMentioned[*]');
  });
});
