import { Inject, Injectable } from '@nestjs/common';
import { GraphChangeNotifier } from './graph-change.notifier';
import { GraphStore } from './graph-store';
import { GRAPH_STORE } from './graph-store.token';
import { MutableGraphDataSource } from './mutable-graph-data-source';
import { LiveOverlayRegistry } from './overlay/live-overlay.registry';
import { OverlayGraphDataSource } from './overlay/overlay-graph.data-source';

/**
 * The one way services reach graph data: a data source scoped to the caller's workspace, the
 * store's seen through the live overlay (unsaved state from the sync server), so every consumer
 * (retriever, tools, agent, export) sees what the user sees. Writes through it reach the store and
 * notify GraphChangeNotifier.
 */
@Injectable()
export class GraphDataSourceFactory {
  constructor(
    @Inject(GRAPH_STORE) private readonly store: GraphStore,
    // Defaults serve code that builds the factory by hand (tests, CLIs); GraphModule injects the shared ones.
    private readonly overlays: LiveOverlayRegistry = new LiveOverlayRegistry(),
    private readonly notifier: GraphChangeNotifier = new GraphChangeNotifier(),
  ) {}

  forWorkspace(workspace: string): MutableGraphDataSource {
    return new OverlayGraphDataSource(this.store.forWorkspace(workspace), this.overlays, this.notifier);
  }

  /** The keys of the graphs of one workspace, in the store's order. */
  async graphKeysOf(workspace: string): Promise<string[]> {
    return (await this.store.listGraphs(workspace)).map((entry) => entry.graphKey);
  }
}
