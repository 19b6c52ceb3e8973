import { aql } from 'arangojs';
import { AqlQuery } from 'arangojs/aql';
import { DocumentCollection } from 'arangojs/collections';
import type { MemoryFilter, MemoryLevel, NodeMention } from '../memory-record';
import type { ArangoMemoryDocument } from './arango-memory-document.mapper';

/** Server metadata a read never needs. */
const HIDDEN_FIELDS = ['_id', '_rev'];

/** The collections the queries run against (arangojs objects: they become `@@` bind variables). */
export interface ArangoMemoryCollections {
  records: DocumentCollection;
  cursors: DocumentCollection;
}

/**
 * Every AQL query of the ArangoDB memory repository. Each is built with the `aql` template only: every
 * value (workspace, ids, keys, texts, vectors) is a bind variable and every collection a `@@` bind
 * variable; nothing is concatenated into the text. Every query but the retention trim filters on the
 * workspace.
 */
export class ArangoMemoryQueries {
  constructor(private readonly c: ArangoMemoryCollections) {}

  /**
   * Inserts the record unless its key exists, and touches its thread's cursor document in the same query
   * (a summary written advances it). The cursor document is where deleteThread leaves its mark: a thread
   * whose memory was deleted gets nothing; and since both write that one document, an insert racing with
   * the delete is a write-write conflict, run again by the caller, which then sees the mark (or the delete
   * then sees the record). Returns [{ written, deleted }].
   */
  insert(document: ArangoMemoryDocument, cursorKey: string): AqlQuery {
    const level1End = document.level === 1 ? document.charRange[1] : 0;
    const level2End = document.level === 2 ? document.charRange[1] : 0;
    return aql`
      LET cursor = FIRST(FOR existing IN ${this.c.cursors} FILTER existing._key == ${cursorKey} RETURN existing)
      LET accepting = cursor == null OR cursor.deleted != true
      LET inserted = (
        FOR record IN (accepting ? [${document}] : [])
          INSERT record INTO ${this.c.records} OPTIONS { ignoreErrors: true }
          RETURN NEW._key
      )
      LET written = LENGTH(inserted) > 0
      LET touched = (
        FOR slot IN (accepting ? [1] : [])
          UPSERT { _key: ${cursorKey} }
            INSERT { _key: ${cursorKey}, workspace: ${document.workspace}, threadId: ${document.threadId}, level1End: written ? ${level1End} : 0, level2End: written ? ${level2End} : 0 }
            UPDATE { level1End: MAX([OLD.level1End, written ? ${level1End} : 0]), level2End: MAX([OLD.level2End, written ? ${level2End} : 0]) }
            IN ${this.c.cursors}
          RETURN 1
      )
      RETURN { written: written, deleted: !accepting }`;
  }

  setEmbedding(workspace: string, memoryId: string, embedding: number[], model: string): AqlQuery {
    return aql`
      FOR record IN ${this.c.records}
        FILTER record._key == ${memoryId} AND record.workspace == ${workspace}
        UPDATE record WITH { embedding: ${embedding}, embeddingModel: ${model} } IN ${this.c.records}`;
  }

  list(workspace: string, threadId: string, filter: MemoryFilter): AqlQuery {
    return aql`
      FOR record IN ${this.c.records}
        FILTER record.workspace == ${workspace} AND record.threadId == ${threadId}
        FILTER ${filter.level ?? null} == null OR record.level == ${filter.level ?? null}
        FILTER ${filter.since ?? null} == null OR record.createdTime >= ${filter.since ?? null}
        FILTER ${filter.until ?? null} == null OR record.createdTime <= ${filter.until ?? null}
        FILTER ${filter.needingEmbeddingBy ?? null} == null OR record.embedding == null OR record.embeddingModel != ${filter.needingEmbeddingBy ?? null}
        FILTER ${filter.memoryIds ?? null} == null OR record._key IN ${filter.memoryIds ?? null}
        SORT record.createdTime, record.charRange[0], record.level, record._key
        RETURN UNSET(record, ${filter.vectors === false ? [...HIDDEN_FIELDS, 'embedding'] : HIDDEN_FIELDS})`;
  }

  vectors(workspace: string, threadId: string, model: string): AqlQuery {
    return aql`
      FOR record IN ${this.c.records}
        FILTER record.workspace == ${workspace} AND record.threadId == ${threadId}
        FILTER record.embeddingModel == ${model} AND record.embedding != null
        SORT record.createdTime, record.charRange[0], record.level, record._key
        RETURN { memoryId: record._key, level: record.level, embedding: record.embedding }`;
  }

  cursor(workspace: string, cursorKey: string): AqlQuery {
    return aql`
      FOR cursor IN ${this.c.cursors}
        FILTER cursor._key == ${cursorKey} AND cursor.workspace == ${workspace}
        RETURN { level1End: cursor.level1End, level2End: cursor.level2End }`;
  }

  allMentions(workspace: string, graphKey: string): AqlQuery {
    return aql`
      FOR record IN ${this.c.records}
        FILTER record.workspace == ${workspace} AND record.graphKey == ${graphKey} AND record.stale != true
        FOR mention IN record.mentions
          RETURN DISTINCT { key: mention.key, fingerprint: mention.fingerprint }`;
  }

  mentionsOf(workspace: string, graphKey: string, nodeKeys: readonly string[]): AqlQuery {
    return aql`
      FOR nodeKey IN ${nodeKeys}
        FOR record IN ${this.c.records}
          FILTER record.workspace == ${workspace} AND record.graphKey == ${graphKey} AND nodeKey IN record.nodesMentioned[*]
          FILTER record.stale != true
          FOR mention IN record.mentions
            FILTER mention.key == nodeKey
            RETURN DISTINCT { key: mention.key, fingerprint: mention.fingerprint }`;
  }

  /**
   * Reads the matching records and the summaries above them first (level-1 summaries of a matching record,
   * then level-2 summaries of either), then updates each once (a document is never modified twice in one query).
   */
  markStale(workspace: string, graphKey: string, outdated: readonly NodeMention[], now: number): AqlQuery {
    return aql`
      LET direct = UNIQUE(
        FOR old IN ${outdated}
          FOR record IN ${this.c.records}
            FILTER record.workspace == ${workspace} AND record.graphKey == ${graphKey} AND old.key IN record.nodesMentioned[*]
            FILTER record.stale != true
            FILTER LENGTH(FOR mention IN record.mentions FILTER mention.key == old.key AND mention.fingerprint == old.fingerprint LIMIT 1 RETURN 1) > 0
            RETURN { key: record._key, threadId: record.threadId }
      )
      ${this.markWithSummaries(workspace, now)}`;
  }

  /** These records of the workspace and the summaries above them, marked stale (see markStale). */
  markRecordsStale(workspace: string, memoryIds: readonly string[], now: number): AqlQuery {
    return aql`
      LET direct = (
        FOR record IN ${this.c.records}
          FILTER record._key IN ${memoryIds} AND record.workspace == ${workspace}
          RETURN { key: record._key, threadId: record.threadId }
      )
      ${this.markWithSummaries(workspace, now)}`;
  }

  /**
   * Removes the thread's records and turns its cursor document into a mark (deleted, with the time) that
   * refuses later inserts (see insert); forgetDeletedThreads removes old marks.
   */
  deleteThread(workspace: string, threadId: string, cursorKey: string, now: number): AqlQuery {
    return aql`
      LET removed = (
        FOR record IN ${this.c.records}
          FILTER record.workspace == ${workspace} AND record.threadId == ${threadId}
          REMOVE record IN ${this.c.records}
          RETURN 1
      )
      UPSERT { _key: ${cursorKey} }
        INSERT { _key: ${cursorKey}, workspace: ${workspace}, threadId: ${threadId}, level1End: 0, level2End: 0, deleted: true, deletedTime: ${now} }
        UPDATE { level1End: 0, level2End: 0, deleted: true, deletedTime: ${now} }
        IN ${this.c.cursors}
      RETURN LENGTH(removed)`;
  }

  /** The marks deleteThread left before `before`, removed (every workspace). */
  forgetDeletedThreads(before: number): AqlQuery {
    return aql`
      FOR cursor IN ${this.c.cursors}
        FILTER cursor.deleted == true AND cursor.deletedTime < ${before}
        REMOVE cursor IN ${this.c.cursors}
        RETURN 1`;
  }

  /**
   * Retention of one level in every workspace. Level 1: only what a level-2 summary covers, i.e. within its
   * thread's level-2 cursor (walked from the cursors: one per summarized thread). Level 2: whatever is older.
   */
  trim(level: MemoryLevel, before: number): AqlQuery {
    if (level === 1) {
      return aql`
        FOR cursor IN ${this.c.cursors}
          FILTER cursor.level2End > 0 AND cursor.deleted != true
          FOR record IN ${this.c.records}
            FILTER record.workspace == cursor.workspace AND record.threadId == cursor.threadId
            FILTER record.level == ${level} AND record.createdTime < ${before} AND record.charRange[1] <= cursor.level2End
            REMOVE record IN ${this.c.records}
            RETURN 1`;
    }
    return aql`
      FOR record IN ${this.c.records}
        FILTER record.level == ${level} AND record.createdTime < ${before}
        REMOVE record IN ${this.c.records}
        RETURN 1`;
  }

  /**
   * The tail of markStale and markRecordsStale, after `direct` ({key, threadId} of the records to mark):
   * the level-1 then level-2 summaries of those threads built on them, then one update per record not stale yet.
   */
  private markWithSummaries(workspace: string, now: number): AqlQuery {
    return aql`
      LET keys = UNIQUE(direct[*].key)
      LET threads = UNIQUE(direct[*].threadId)
      LET level1 = (
        FOR threadId IN threads
          FOR record IN ${this.c.records}
            FILTER record.workspace == ${workspace} AND record.threadId == threadId AND record.level == 1
            FILTER LENGTH(INTERSECTION(record.parentIds, keys)) > 0
            RETURN record._key
      )
      LET belowLevel2 = UNION_DISTINCT(keys, level1)
      LET level2 = (
        FOR threadId IN threads
          FOR record IN ${this.c.records}
            FILTER record.workspace == ${workspace} AND record.threadId == threadId AND record.level == 2
            FILTER LENGTH(INTERSECTION(record.parentIds, belowLevel2)) > 0
            RETURN record._key
      )
      FOR record IN ${this.c.records}
        FILTER record._key IN UNION_DISTINCT(belowLevel2, level2) AND record.workspace == ${workspace} AND record.stale != true
        UPDATE record WITH { stale: true, staleTime: ${now} } IN ${this.c.records}
        RETURN 1`;
  }
}
