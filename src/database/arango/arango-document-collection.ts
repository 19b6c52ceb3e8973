import { Database } from 'arangojs';
import { CollectionType } from 'arangojs/collections';
import { isArangoError } from 'arangojs/errors';
import { Logger } from '../../observability/logger';

/** "duplicate name": another instance created the same collection between our check and our create. */
const DUPLICATE_NAME = 1207;

/**
 * Makes sure a document collection exists: created when missing, safely when several instances start
 * at once (the one that loses the race finds it created); an existing one is used as it is, after
 * checking it is a document collection. Never drops or rewrites anything. True when it was created.
 */
export async function ensureDocumentCollection(db: Database, name: string, logger: Logger): Promise<boolean> {
  const collection = db.collection(name);
  if (await collection.exists()) {
    const properties = await collection.properties();
    if (properties.type !== CollectionType.DOCUMENT_COLLECTION) throw new Error(`Collection ${name} exists but is not a document collection`);
    return false;
  }
  try {
    await collection.create({ type: CollectionType.DOCUMENT_COLLECTION });
    logger.info('arango_collection_created', { collection: name });
    return true;
  } catch (error) {
    if (isArangoError(error) && (error.errorNum === DUPLICATE_NAME || error.code === 409)) return false;
    throw error;
  }
}
