import { LiveGraphChanges } from './live-graph-changes';

/**
 * Where the change feed writes unsaved state: this instance's LiveOverlayRegistry (LocalLiveOverlayWriter),
 * or, with REDIS_URL, Redis and every instance's registry (RedisLiveOverlayWriter). Either way this
 * instance's registry holds the change when the call resolves, so a question asked here right after sees it.
 * Readers never call this: they read the registry.
 */
export interface LiveOverlayWriter {
  /** Applies unsaved changes; resolves with the graph's entries after them. Throws payload_too_large (nothing applied) past the graph's limit. */
  apply(workspace: string, graphKey: string, changes: LiveGraphChanges): Promise<number>;
  /** The keys were saved: the store is the truth for them again. Resolves with the graph's entries left. */
  forget(workspace: string, graphKey: string, nodeKeys: string[], edgeKeys: string[]): Promise<number>;
  /** Drops the graph's whole overlay (the graph was replaced by an import). */
  clear(workspace: string, graphKey: string): Promise<void>;
}
