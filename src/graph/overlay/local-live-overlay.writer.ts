import { LiveGraphChanges } from './live-graph-changes';
import { LiveOverlayRegistry } from './live-overlay.registry';
import { LiveOverlayWriter } from './live-overlay.writer';

/** Without REDIS_URL: the feed writes this instance's registry, and only it sees the unsaved state. */
export class LocalLiveOverlayWriter implements LiveOverlayWriter {
  constructor(private readonly overlays: LiveOverlayRegistry) {}

  async apply(workspace: string, graphKey: string, changes: LiveGraphChanges): Promise<number> {
    return this.overlays.apply(workspace, graphKey, changes).entryCount;
  }

  async forget(workspace: string, graphKey: string, nodeKeys: string[], edgeKeys: string[]): Promise<number> {
    this.overlays.forget(workspace, graphKey, nodeKeys, edgeKeys);
    return this.overlays.get(workspace, graphKey)?.entryCount ?? 0;
  }

  async clear(workspace: string, graphKey: string): Promise<void> {
    this.overlays.clear(workspace, graphKey);
  }
}
