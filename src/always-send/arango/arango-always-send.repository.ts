import { Database } from 'arangojs';
import { ensureDocumentCollection } from '../../database/arango/arango-collection.ensurer';
import { hashedDocumentKey } from '../../database/arango/arango-hashed.key';
import { ArangoQueryExecutor } from '../../database/arango/arango-query.executor';
import { runArangoSchemaSetup } from '../../database/arango/arango-schema.setup';
import { Logger } from '../../observability/logger';
import type { AlwaysSendList } from '../always-send';
import type { AlwaysSendDocument, AlwaysSendRepository } from '../always-send.repository';
import { ArangoAlwaysSendQueries } from './arango-always-send.queries';

const logger = new Logger('arango-always-send');

/** The collection of this service's own (not a Nodius one): one document per (workspace, graph). */
export const ARANGO_ALWAYS_SEND = 'nodius_ai_always_send';

/**
 * AlwaysSendRepository on ArangoDB (STORE=arango): one document per graph in `nodius_ai_always_send`, `_key` hashed
 * from the workspace and the graph key (any character may be in a workspace name), replaced whole by put. Failures
 * become the service's errors (an unreachable server: `store_unavailable`, 503). The connection belongs to the
 * persistence module.
 */
export class ArangoAlwaysSendRepository implements AlwaysSendRepository {
  private readonly queries: ArangoAlwaysSendQueries;
  private readonly executor: ArangoQueryExecutor;

  constructor(db: Database) {
    this.queries = new ArangoAlwaysSendQueries(db.collection(ARANGO_ALWAYS_SEND));
    this.executor = new ArangoQueryExecutor(db);
  }

  /** Creates the collection when missing (idempotent, safe when several instances start at once), then returns the repository. */
  static async open(db: Database): Promise<ArangoAlwaysSendRepository> {
    await runArangoSchemaSetup(db, 'always-send collection', async () => {
      if (await ensureDocumentCollection(db, ARANGO_ALWAYS_SEND))
        logger.info('arango_collection_created', { collection: ARANGO_ALWAYS_SEND });
    });
    return new ArangoAlwaysSendRepository(db);
  }

  async get(workspace: string, graphKey: string): Promise<AlwaysSendList | null> {
    const stored = await this.executor.first<AlwaysSendList>(
      this.queries.list(keyOf(workspace, graphKey), workspace, graphKey),
      'always_send_get',
    );
    return stored ? toList(stored) : null;
  }

  async put(workspace: string, graphKey: string, list: AlwaysSendDocument, now: number): Promise<AlwaysSendList> {
    const document = {
      _key: keyOf(workspace, graphKey),
      workspace,
      graphKey,
      nodeKeys: [...list.nodeKeys],
      nodeTypes: [...list.nodeTypes],
      updatedTime: now,
    };
    const stored = await this.executor.first<AlwaysSendList>(this.queries.replace(document), 'always_send_put');
    return toList(stored ?? document);
  }
}

function keyOf(workspace: string, graphKey: string): string {
  return hashedDocumentKey('always_send', [workspace, graphKey]);
}

/** A stored document read defensively: a list that is not an array of strings reads as empty. */
function toList(stored: Partial<AlwaysSendList>): AlwaysSendList {
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  return {
    nodeKeys: strings(stored.nodeKeys),
    nodeTypes: strings(stored.nodeTypes),
    ...(typeof stored.updatedTime === 'number' ? { updatedTime: stored.updatedTime } : {}),
  };
}
