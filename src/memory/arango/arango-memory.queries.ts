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
   * Inserts the record unless its key exists; a summary then advances its thread's cursor, in the
   * same query. Returns [true] when the record was written.
   */
  insert(document: ArangoMemoryDocument, cursorKey: string): AqlQuery {
    const level1End = document.level === 1 ? document.charRange[1] : 0;
    const level2End = document.level === 2 ? document.charRange[1] : 0;
    return aql`
      LET inserted = (INSERT ${document} INTO ${this.c.records} OPTIONS { ignoreErrors: true } RETURN NEW._key)
      LET advanced = (
        FOR written IN (LENGTH(inserted) > 0 AND ${document.level} > 0 ? [1] : [])
          UPSERT { _key: ${cursorKey} }
            INSERT { _key: ${cursorKey}, workspace: ${document.workspace}, threadId: ${document.threadId}, level1End: ${level1End}, level2End: ${level2End} }
            UPDATE { level1End: MAX([OLD.level1End, ${level1End}]), level2End: MAX([OLD.level2End, ${level2End}]) }
            IN ${this.c.cursors}
          RETURN 1
      )
      RETURN LENGTH(inserted) > 0`;
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

  /** Reads the matching records first, then updates each once (a document is never modified twice in one query). */
  markStale(workspace: string, graphKey: string, outdated: readonly NodeMention[], now: number): AqlQuery {
    return aql`
      LET keys = UNIQUE(
        FOR old IN ${outdated}
          FOR record IN ${this.c.records}
            FILTER record.workspace == ${workspace} AND record.graphKey == ${graphKey} AND old.key IN record.nodesMentioned[*]
            FILTER record.stale != true
            FILTER LENGTH(FOR mention IN record.mentions FILTER mention.key == old.key AND mention.fingerprint == old.fingerprint LIMIT 1 RETURN 1) > 0
            RETURN record._key
      )
      FOR key IN keys
        UPDATE key WITH { stale: true, staleTime: ${now} } IN ${this.c.records}
        RETURN 1`;
  }

  deleteThread(workspace: string, threadId: string, cursorKey: string): AqlQuery {
    return aql`
      LET removed = (
        FOR record IN ${this.c.records}
          FILTER record.workspace == ${workspace} AND record.threadId == ${threadId}
          REMOVE record IN ${this.c.records}
          RETURN 1
      )
      LET cursors = (
        FOR cursor IN ${this.c.cursors}
          FILTER cursor._key == ${cursorKey} AND cursor.workspace == ${workspace}
          REMOVE cursor IN ${this.c.cursors}
          RETURN 1
      )
      RETURN LENGTH(removed)`;
  }

  trim(level: MemoryLevel, before: number): AqlQuery {
    return aql`
      FOR record IN ${this.c.records}
        FILTER record.level == ${level} AND record.createdTime < ${before}
        REMOVE record IN ${this.c.records}
        RETURN 1`;
  }
}
