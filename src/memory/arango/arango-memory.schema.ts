import { Database } from 'arangojs';
import { EnsureIndexOptions } from 'arangojs/indexes';
import { ensureDocumentCollection } from '../../database/arango/arango-collection.ensurer';
import { Logger } from '../../observability/logger';
import { ARANGO_MEMORY_NAMES } from './arango-memory.names';

const logger = new Logger('arango-memory');

const INDEXES: ReadonlyArray<{ collection: string; index: EnsureIndexOptions }> = [
  // A thread's records, oldest first (the memory endpoint, recall, reconciliation).
  {
    collection: ARANGO_MEMORY_NAMES.records,
    index: { type: 'persistent', fields: ['workspace', 'threadId', 'createdTime'] },
  },
  // Records mentioning a node of a graph (staleness).
  {
    collection: ARANGO_MEMORY_NAMES.records,
    index: { type: 'persistent', fields: ['workspace', 'graphKey', 'nodesMentioned[*]'] },
  },
  // Retention: records of a level older than a date.
  { collection: ARANGO_MEMORY_NAMES.records, index: { type: 'persistent', fields: ['level', 'createdTime'] } },
];

/**
 * Creates the memory collections and their indexes when missing, idempotently and safely when
 * several instances start at once. Never drops or rewrites anything.
 */
export class ArangoMemorySchema {
  constructor(private readonly db: Database) {}

  async ensure(): Promise<void> {
    for (const name of Object.values(ARANGO_MEMORY_NAMES)) {
      if (await ensureDocumentCollection(this.db, name)) logger.info('arango_collection_created', { collection: name });
    }
    for (const { collection, index } of INDEXES) await this.db.collection(collection).ensureIndex(index);
    logger.info('arango_memory_schema_ready', { collections: Object.values(ARANGO_MEMORY_NAMES) });
  }
}
