import { Database } from 'arangojs';
import { CollectionType } from 'arangojs/collections';
import { isArangoError } from 'arangojs/errors';
import { EnsureIndexOptions } from 'arangojs/indexes';
import { Logger } from '../../observability/logger';
import { ARANGO_MEMORY_NAMES } from './arango-memory.names';

const logger = new Logger('arango-memory');

/** "duplicate name": another instance created the same collection between our check and our create. */
const DUPLICATE_NAME = 1207;

const INDEXES: ReadonlyArray<{ collection: string; index: EnsureIndexOptions }> = [
  // A thread's records, oldest first (the memory endpoint, recall, reconciliation).
  { collection: ARANGO_MEMORY_NAMES.records, index: { type: 'persistent', fields: ['workspace', 'threadId', 'createdTime'] } },
  // Records mentioning a node of a graph (staleness).
  { collection: ARANGO_MEMORY_NAMES.records, index: { type: 'persistent', fields: ['workspace', 'graphKey', 'nodesMentioned[*]'] } },
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
    for (const name of Object.values(ARANGO_MEMORY_NAMES)) await this.ensureCollection(name);
    for (const { collection, index } of INDEXES) await this.db.collection(collection).ensureIndex(index);
    logger.info('arango_memory_schema_ready', { collections: Object.values(ARANGO_MEMORY_NAMES) });
  }

  private async ensureCollection(name: string): Promise<void> {
    const collection = this.db.collection(name);
    if (await collection.exists()) return;
    try {
      await collection.create({ type: CollectionType.DOCUMENT_COLLECTION });
      logger.info('arango_collection_created', { collection: name });
    } catch (error) {
      if (isArangoError(error) && (error.errorNum === DUPLICATE_NAME || error.code === 409)) return;
      throw error;
    }
  }
}
