import { Database } from 'arangojs';
import { CollectionType } from 'arangojs/collections';
import { isArangoError } from 'arangojs/errors';

/** "duplicate name": another instance created the same collection between our check and our create. */
const DUPLICATE_NAME = 1207;

/**
 * Makes sure a document collection exists, idempotently and safely when several instances start at
 * once: created when missing (a creation another instance won counts as done), used as is when
 * present. Never drops or rewrites anything; throws when the name is taken by an edge collection.
 * Answers whether this call created it.
 */
export async function ensureDocumentCollection(db: Database, name: string): Promise<boolean> {
  const collection = db.collection(name);
  if (await collection.exists()) {
    const properties = await collection.properties();
    if (properties.type !== CollectionType.DOCUMENT_COLLECTION)
      throw new Error(`Collection ${name} exists but is not a document collection`);
    return false;
  }
  try {
    await collection.create({ type: CollectionType.DOCUMENT_COLLECTION });
    return true;
  } catch (error) {
    if (isArangoError(error) && (error.errorNum === DUPLICATE_NAME || error.code === 409)) return false;
    throw error;
  }
}
