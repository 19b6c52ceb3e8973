import { Database } from 'arangojs';
import { EnsureIndexOptions } from 'arangojs/indexes';
import { ensureDocumentCollection } from '../../database/arango/arango-collection.ensurer';
import { Logger } from '../../observability/logger';
import { ARANGO_THREAD_NAMES } from './arango-thread.names';

const logger = new Logger('arango-threads');

/** The attribute the TTL indexes read: seconds since the epoch, set from the server's clock on each write. */
export const TTL_FIELD = 'removeAt';

/**
 * Built in the background (`inBackground`): `nodius_ai_threads` may be Nodius's own, already full
 * collection, which must stay writable while a first start indexes it.
 */
const INDEXES: ReadonlyArray<{ collection: string; index: EnsureIndexOptions }> = [
  // POST /api/ai/threads: one owner's threads of one graph, newest first.
  {
    collection: ARANGO_THREAD_NAMES.threads,
    index: { type: 'persistent', fields: ['workspace', 'userId', 'graphKey', 'lastUpdatedTime'], inBackground: true },
  },
  // GET /api/ai/approvals: the workspace's threads waiting for a human, newest interrupt first (sparse: only those).
  {
    collection: ARANGO_THREAD_NAMES.threads,
    index: {
      type: 'persistent',
      fields: ['workspace', 'pendingInterrupt.createdTime'],
      sparse: true,
      inBackground: true,
    },
  },
  // Cleanup only: leases of crashed runs and expired Idempotency-Keys (the queries check expiry themselves).
  {
    collection: ARANGO_THREAD_NAMES.leases,
    index: { type: 'ttl', fields: [TTL_FIELD], expireAfter: 0, inBackground: true },
  },
  {
    collection: ARANGO_THREAD_NAMES.idempotencyKeys,
    index: { type: 'ttl', fields: [TTL_FIELD], expireAfter: 0, inBackground: true },
  },
];

/**
 * Brings a database to what the thread repository needs, idempotently and safely when several
 * instances start at once: the four document collections (created only when missing; an existing
 * `nodius_ai_threads` of Nodius is used as is) and their indexes. Never drops or rewrites anything.
 */
export class ArangoThreadSchema {
  constructor(private readonly db: Database) {}

  async ensure(): Promise<void> {
    for (const name of Object.values(ARANGO_THREAD_NAMES)) {
      if (await ensureDocumentCollection(this.db, name)) logger.info('arango_collection_created', { collection: name });
    }
    for (const { collection, index } of INDEXES) {
      // ensureIndex answers the existing index when an identical one is there.
      await this.db.collection(collection).ensureIndex(index);
    }
    logger.info('arango_thread_schema_ready', { collections: Object.values(ARANGO_THREAD_NAMES) });
  }
}
