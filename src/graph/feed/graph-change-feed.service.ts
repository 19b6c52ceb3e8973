import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';
import { GraphChangeNotifier } from '../graph-change.notifier';
import { GraphDataSourceFactory } from '../graph-data-source.factory';
import { GraphStore } from '../graph-store';
import { GRAPH_STORE } from '../graph-store.token';
import { GraphEdge, GraphNode } from '../graph.types';
import { MutableGraphDataSource } from '../mutable-graph-data-source';
import { LiveGraphChanges } from '../overlay/live-graph-changes';
import { LiveOverlayRegistry } from '../overlay/live-overlay.registry';
import { LiveOverlayWriter } from '../overlay/live-overlay.writer';
import { LIVE_OVERLAY_WRITER } from '../overlay/live-overlay-writer.token';
import { checkFeedIntegrity, FeedBodyPositions } from './feed-integrity.checker';
import { normalizeLiveChanges, RawGraphChanges } from './live-changes.normalizer';
import { planSavedChanges } from './saved-changes.planner';

export interface GraphChangesOutcome {
  accepted: true;
  saved: boolean;
  changes: { upsertNodes: number; deleteNodes: number; upsertEdges: number; deleteEdges: number };
  overlayEntries: number;
  embeddingCandidates: number;
}

const logger = new Logger('graph');

/**
 * The sync server's change feed. Live state (`saved:false`) goes to the graph's
 * live overlay. Saved changes (`saved:true`) are applied to a store this service owns (SQLite) in
 * one transaction — on a store it does not own (ArangoDB) Nodius already saved them — and the
 * overlay forgets their keys. Either way a GraphChangeEvent tells the retrieval cache and the
 * embedding write path; vectors are computed in the background, never in the request.
 */
@Injectable()
export class GraphChangeFeedService {
  /** Saves of one graph run one after the other (read stored state, then write, without interleaving). */
  private readonly saving = new Map<string, Promise<unknown>>();
  /** The graphs as readers see them (store + live overlay), for the integrity check of unsaved changes. */
  private readonly dataSources: GraphDataSourceFactory;

  constructor(
    @Inject(GRAPH_STORE) private readonly store: GraphStore,
    replicas: LiveOverlayRegistry,
    private readonly notifier: GraphChangeNotifier,
    /** Where unsaved changes go: this instance's registry, or every instance's through Redis. */
    @Inject(LIVE_OVERLAY_WRITER) private readonly overlays: LiveOverlayWriter,
  ) {
    this.dataSources = new GraphDataSourceFactory(store, replicas, notifier);
  }

  async accept(
    workspace: string,
    graphKey: string,
    body: RawGraphChanges & { saved: boolean },
  ): Promise<GraphChangesOutcome> {
    const changes = normalizeLiveChanges(graphKey, body);
    const source = this.store.forWorkspace(workspace);
    const graph = await source.getGraph(graphKey);
    if (!graph) throw AppError.notFound(`Graph "${graphKey}" does not exist`);
    // Unsaved changes land on the graph as the overlay shows it; saved ones on the store (on ArangoDB Nodius saved them already).
    if (!body.saved || this.store.supportsImport) {
      const view = body.saved ? source : this.dataSources.forWorkspace(workspace);
      const problems = await checkFeedIntegrity(view, graph, changes, bodyPositions(body));
      if (problems.length > 0) {
        throw AppError.badRequest(
          `The changes to graph "${graphKey}" break its integrity: ${problems.length} problem(s)`,
          problems,
        );
      }
    }

    let changedNodeKeys: string[] = [];
    let overlayEntries: number;
    if (!body.saved) {
      overlayEntries = await this.overlays.apply(workspace, graphKey, changes);
      this.notifier.notify({ kind: 'live', workspace, graphKey });
    } else {
      changedNodeKeys = this.store.supportsImport
        ? await this.serialized(`${workspace}\u0000${graphKey}`, () => this.saveToStore(source, graphKey, changes))
        : // Nodius saved them itself; the write path skips nodes whose embedding text did not change.
          changes.upsertNodes.map((node) => node._key);
      overlayEntries = await this.overlays.forget(
        workspace,
        graphKey,
        [...changes.upsertNodes.map((node) => node._key), ...changes.deleteNodes],
        [...changes.upsertEdges.map((edge) => edge._key), ...changes.deleteEdges],
      );
      this.notifier.notify({
        kind: 'stored',
        workspace,
        graphKey,
        nodeKeys: changedNodeKeys,
        ...(changes.deleteNodes.length > 0 ? { deletedNodeKeys: [...changes.deleteNodes] } : {}),
      });
    }

    const outcome: GraphChangesOutcome = {
      accepted: true,
      saved: body.saved,
      changes: {
        upsertNodes: changes.upsertNodes.length,
        deleteNodes: changes.deleteNodes.length,
        upsertEdges: changes.upsertEdges.length,
        deleteEdges: changes.deleteEdges.length,
      },
      overlayEntries,
      embeddingCandidates: changedNodeKeys.length,
    };
    logger.info('graph_changes_accepted', {
      workspace,
      graphKey,
      saved: body.saved,
      ...outcome.changes,
      overlayEntries: outcome.overlayEntries,
    });
    return outcome;
  }

  /** Reads the stored state of the touched keys, plans, applies; retried once if another writer got in between. */
  private async saveToStore(
    source: MutableGraphDataSource,
    graphKey: string,
    changes: LiveGraphChanges,
  ): Promise<string[]> {
    for (let attempt = 0; ; attempt += 1) {
      const nodeKeys = [...changes.upsertNodes.map((node) => node._key), ...changes.deleteNodes];
      const storedNodes = new Map<string, GraphNode>(
        (await source.getNodesByKeys(graphKey, nodeKeys)).map((node) => [node._key, node]),
      );
      const touchesEdges = changes.upsertEdges.length > 0 || changes.deleteEdges.length > 0;
      const storedEdges = new Map<string, GraphEdge>(
        touchesEdges ? (await source.getEdges(graphKey)).map((edge) => [edge._key, edge]) : [],
      );
      const plan = planSavedChanges(changes, storedNodes, storedEdges);
      try {
        await source.applyChanges(graphKey, plan.changes);
        return plan.changedNodeKeys;
      } catch (error) {
        const raced = error instanceof AppError && (error.code === 'conflict' || error.code === 'not_found');
        if (!raced || attempt > 0) throw error;
      }
    }
  }

  private async serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.saving.get(key) ?? Promise.resolve();
    const current = previous.catch(() => undefined).then(work);
    this.saving.set(key, current);
    try {
      return await current;
    } finally {
      if (this.saving.get(key) === current) this.saving.delete(key);
    }
  }
}

/** The index of each upserted key's last occurrence in the body (the one normalizeLiveChanges keeps). */
function bodyPositions(body: RawGraphChanges): FeedBodyPositions {
  const positions = (items: object[] | undefined) =>
    new Map((items ?? []).map((item, index) => [(item as { _key: string })._key, index]));
  return { upsertNodes: positions(body.upsertNodes), upsertEdges: positions(body.upsertEdges) };
}
