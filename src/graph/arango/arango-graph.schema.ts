import { Database } from 'arangojs';
import { CollectionType } from 'arangojs/collections';
import { isArangoError } from 'arangojs/errors';
import { HiddenIndexDescription } from 'arangojs/indexes';
import { ArangoSearchViewLink, ArangoSearchViewLinkOptions, ArangoSearchViewProperties } from 'arangojs/views';
import { Logger } from '../../observability/logger';
import { ArangoCapabilities, detectVectorIndex, IndexLike } from './arango-capabilities';
import { ARANGO_GRAPH_NAMES } from './arango-graph.names';
import { NODE_SEARCH_LINK, SEARCH_ANALYZERS } from './arango-search.definitions';

const logger = new Logger('arango-store');

/** "duplicate name": another instance created the same thing between our check and our create. */
const DUPLICATE_NAME = 1207;

/** What ArangoSearch applies to a link or field that names no analyzers. */
const DEFAULT_ANALYZERS = ['identity'];

const DOCUMENT_COLLECTIONS = [
  ARANGO_GRAPH_NAMES.graphs,
  ARANGO_GRAPH_NAMES.nodes,
  ARANGO_GRAPH_NAMES.nodeConfigs,
  ARANGO_GRAPH_NAMES.threads,
];

/** Persistent indexes the queries rely on (nodes/edges have no workspace: they are reached through graphKey). */
const INDEXES: ReadonlyArray<{ collection: string; fields: string[] }> = [
  { collection: ARANGO_GRAPH_NAMES.nodes, fields: ['graphKey'] },
  { collection: ARANGO_GRAPH_NAMES.edges, fields: ['graphKey'] },
  { collection: ARANGO_GRAPH_NAMES.graphs, fields: ['workspace'] },
  { collection: ARANGO_GRAPH_NAMES.nodeConfigs, fields: ['workspace'] },
];

/**
 * Brings a database to what the service needs, idempotently and safely when several instances start
 * at once: the Nodius collections (created only when missing: an existing Nodius database is used as
 * is), the indexes, the search analyzers and the search view. Then detects what the server offers
 * (version, a usable vector index). Never drops or rewrites anything.
 */
export class ArangoGraphSchema {
  constructor(private readonly db: Database) {}

  async ensure(): Promise<ArangoCapabilities> {
    const { version } = await this.db.version();
    await this.ensureCollections();
    await this.ensureIndexes();
    await this.ensureAnalyzers();
    await this.ensureSearchView();
    // withHidden: indexes still being built are listed (with their progress), and from 3.12.10 the
    // number of centroids each shard was trained with.
    const indexes: IndexLike[] = await this.db
      .collection(ARANGO_GRAPH_NAMES.nodes)
      .indexes<HiddenIndexDescription>({ withHidden: true });
    const { vectorIndex, ignored } = detectVectorIndex(version, indexes);
    for (const index of ignored)
      logger.warn('arango_vector_index_ignored', { index: index.name, reason: index.reason });
    logger.info('arango_schema_ready', {
      version,
      vectorIndex: vectorIndex
        ? `${vectorIndex.name} (dimension ${vectorIndex.dimension}, nLists ${vectorIndex.nLists ?? 'unknown'}, stored ${vectorIndex.storedValues.join(', ') || 'none'})`
        : 'none, exact cosine scan',
    });
    return { version, vectorIndex };
  }

  private async ensureCollections(): Promise<void> {
    for (const name of DOCUMENT_COLLECTIONS) await this.ensureCollection(name, CollectionType.DOCUMENT_COLLECTION);
    await this.ensureCollection(ARANGO_GRAPH_NAMES.edges, CollectionType.EDGE_COLLECTION);
  }

  private async ensureCollection(name: string, type: CollectionType): Promise<void> {
    const collection = this.db.collection(name);
    if (await collection.exists()) {
      const properties = await collection.properties();
      if (properties.type !== type) {
        throw new Error(
          `Collection ${name} exists but is not ${type === CollectionType.EDGE_COLLECTION ? 'an edge' : 'a document'} collection`,
        );
      }
      return;
    }
    await ignoreDuplicate(() => collection.create({ type }));
    logger.info('arango_collection_created', { collection: name });
  }

  private async ensureIndexes(): Promise<void> {
    for (const { collection, fields } of INDEXES) {
      // ensureIndex returns the existing index when an identical one is there (Nodius may have made it;
      // inBackground is not part of the comparison). In the background: Nodius's collections stay
      // writable while a first start indexes them, instead of under an exclusive lock.
      await this.db.collection(collection).ensureIndex({ type: 'persistent', fields, inBackground: true });
    }
  }

  private async ensureAnalyzers(): Promise<void> {
    for (const { name, options } of SEARCH_ANALYZERS) {
      const analyzer = this.db.analyzer(name);
      if (await analyzer.exists()) continue;
      await ignoreDuplicate(() => analyzer.create(options));
      logger.info('arango_analyzer_created', { analyzer: name });
    }
  }

  /** Creates the view, or adds/repairs its link to nodius_nodes; an unchanged link is left alone (no reindex). */
  private async ensureSearchView(): Promise<void> {
    const view = this.db.view(ARANGO_GRAPH_NAMES.searchView);
    if (!(await view.exists())) {
      await ignoreDuplicate(() =>
        view.create({ type: 'arangosearch', links: { [ARANGO_GRAPH_NAMES.nodes]: NODE_SEARCH_LINK } }),
      );
      logger.info('arango_view_created', { view: ARANGO_GRAPH_NAMES.searchView });
      return;
    }
    const properties = (await view.properties()) as ArangoSearchViewProperties;
    if (!isSameLink(properties.links?.[ARANGO_GRAPH_NAMES.nodes])) {
      await view.updateProperties({ links: { [ARANGO_GRAPH_NAMES.nodes]: NODE_SEARCH_LINK } });
      logger.info('arango_view_link_updated', { view: ARANGO_GRAPH_NAMES.searchView });
    }
  }
}

/**
 * The link already indexes every wanted field with the wanted analyzers, so leaving it alone is right
 * (an update would reindex the whole collection). Compared as the server reports links: a field's
 * analyzers default to its link's, which default to ["identity"], and are then often left out; custom
 * analyzer names may carry their database's prefix (`nodius::nodius_ai_prose_v1`).
 */
function isSameLink(
  current: Partial<ArangoSearchViewLink> | undefined,
  wanted: ArangoSearchViewLinkOptions = NODE_SEARCH_LINK,
): boolean {
  if (!current?.fields) return false;
  const effective = (analyzers: string[] | undefined, inherited: string[]): string =>
    (analyzers ?? inherited)
      .map((name) => name.replace(/^.*::/, ''))
      .sort()
      .join(',');
  const currentDefault = current.analyzers ?? DEFAULT_ANALYZERS;
  const wantedDefault = wanted.analyzers ?? DEFAULT_ANALYZERS;
  return Object.entries(wanted.fields ?? {}).every(([field, options]) => {
    const existing = current.fields?.[field];
    return (
      existing !== undefined &&
      effective(existing.analyzers, currentDefault) === effective(options.analyzers, wantedDefault)
    );
  });
}

async function ignoreDuplicate(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (error) {
    if (isArangoError(error) && (error.errorNum === DUPLICATE_NAME || error.code === 409)) return;
    throw error;
  }
}
