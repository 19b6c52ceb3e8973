import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';
import { GraphOverlay } from './graph-overlay';
import { LiveGraphChanges } from './live-graph-changes';

export interface LiveOverlayLimits {
  /** Most entries (upserts + deletions) one graph's overlay holds; a change beyond it is refused (413). */
  maxEntriesPerGraph: number;
  /** Most entries over every overlay of the instance; beyond it the least recently changed overlays are dropped. */
  maxTotalEntries: number;
  /** An overlay that received no change for this long is dropped (its sync server stopped or forgot to save). */
  idleTtlMs: number;
}

export const DEFAULT_LIVE_OVERLAY_LIMITS: LiveOverlayLimits = Object.freeze({
  maxEntriesPerGraph: 5_000,
  maxTotalEntries: 50_000,
  idleTtlMs: 15 * 60_000,
});

const logger = new Logger('graph');

/**
 * The live overlays of this instance, one per (workspace, graph) that has unsaved changes. Reading
 * a graph without one costs two Map lookups. Memory is bounded: entries per graph are capped (a
 * change that would exceed the cap is refused, so an overlay is never silently partial), the total
 * is capped (the least recently changed overlays go first), and idle overlays expire. Dropping an
 * overlay only means readers see the store's last saved state, never a wrong mix.
 *
 * Per instance: with REDIS_URL it is this instance's replica of the shared overlay (RedisLiveOverlayWriter).
 */
export class LiveOverlayRegistry {
  private readonly byWorkspace = new Map<string, Map<string, GraphOverlay>>();
  readonly limits: LiveOverlayLimits;
  private totalEntries = 0;

  constructor(
    limits: Partial<LiveOverlayLimits> = {},
    private readonly clock: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_LIVE_OVERLAY_LIMITS, ...limits };
  }

  /** The graph's overlay, or undefined when it has none (or it expired). */
  get(workspace: string, graphKey: string): GraphOverlay | undefined {
    const overlay = this.byWorkspace.get(workspace)?.get(graphKey);
    if (!overlay) return undefined;
    if (this.clock() - overlay.touchedAt > this.limits.idleTtlMs) {
      logger.warn('live_overlay_expired', {
        workspace,
        graphKey,
        entries: overlay.entryCount,
        idleTtlMs: this.limits.idleTtlMs,
      });
      this.remove(workspace, graphKey);
      return undefined;
    }
    return overlay;
  }

  /** Applies unsaved changes; throws payload_too_large (nothing applied) past maxEntriesPerGraph. */
  apply(workspace: string, graphKey: string, changes: LiveGraphChanges): GraphOverlay {
    const now = this.clock();
    const overlay = this.get(workspace, graphKey) ?? new GraphOverlay(now);
    const after = overlay.entryCountAfter(changes);
    if (after > this.limits.maxEntriesPerGraph) {
      throw new AppError(
        'payload_too_large',
        `The live overlay of graph "${graphKey}" would hold ${after} unsaved entries (limit ${this.limits.maxEntriesPerGraph}): save first`,
        { limit: this.limits.maxEntriesPerGraph, entries: after },
      );
    }
    const before = overlay.entryCount;
    overlay.apply(changes, now);
    let graphs = this.byWorkspace.get(workspace);
    if (!graphs) {
      graphs = new Map();
      this.byWorkspace.set(workspace, graphs);
    }
    graphs.set(graphKey, overlay);
    this.totalEntries += overlay.entryCount - before;
    this.enforceTotal(workspace, graphKey);
    return overlay;
  }

  /** Forgets saved keys; an overlay left empty is removed. */
  forget(workspace: string, graphKey: string, nodeKeys: Iterable<string>, edgeKeys: Iterable<string>): void {
    const overlay = this.byWorkspace.get(workspace)?.get(graphKey);
    if (!overlay) return;
    const before = overlay.entryCount;
    overlay.forget(nodeKeys, edgeKeys);
    this.totalEntries -= before - overlay.entryCount;
    if (overlay.isEmpty) this.remove(workspace, graphKey);
  }

  /** Drops the graph's whole overlay (the graph was replaced by an import). */
  clear(workspace: string, graphKey: string): void {
    this.remove(workspace, graphKey);
  }

  /** The graphs holding an overlay. */
  graphs(): Array<{ workspace: string; graphKey: string }> {
    return [...this.byWorkspace].flatMap(([workspace, graphs]) =>
      [...graphs.keys()].map((graphKey) => ({ workspace, graphKey })),
    );
  }

  /** Overlays and entries held (for logs and tests). */
  stats(): { graphs: number; entries: number } {
    let graphs = 0;
    for (const overlays of this.byWorkspace.values()) graphs += overlays.size;
    return { graphs, entries: this.totalEntries };
  }

  private remove(workspace: string, graphKey: string): void {
    const graphs = this.byWorkspace.get(workspace);
    const overlay = graphs?.get(graphKey);
    if (!graphs || !overlay) return;
    this.totalEntries -= overlay.entryCount;
    graphs.delete(graphKey);
    if (graphs.size === 0) this.byWorkspace.delete(workspace);
  }

  /** Drops the least recently changed overlays (never the one just changed) until the total fits. */
  private enforceTotal(keepWorkspace: string, keepGraphKey: string): void {
    if (this.totalEntries <= this.limits.maxTotalEntries) return;
    const candidates: Array<{ workspace: string; graphKey: string; overlay: GraphOverlay }> = [];
    for (const [workspace, graphs] of this.byWorkspace) {
      for (const [graphKey, overlay] of graphs) {
        if (workspace !== keepWorkspace || graphKey !== keepGraphKey) candidates.push({ workspace, graphKey, overlay });
      }
    }
    candidates.sort((left, right) => left.overlay.touchedAt - right.overlay.touchedAt);
    for (const { workspace, graphKey, overlay } of candidates) {
      if (this.totalEntries <= this.limits.maxTotalEntries) break;
      logger.warn('live_overlay_evicted', {
        workspace,
        graphKey,
        entries: overlay.entryCount,
        maxTotalEntries: this.limits.maxTotalEntries,
      });
      this.remove(workspace, graphKey);
    }
  }
}
