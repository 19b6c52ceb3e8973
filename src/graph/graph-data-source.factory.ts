import { Inject, Injectable } from '@nestjs/common';
import { GraphStore } from './graph-store';
import { GRAPH_STORE } from './graph-store.token';
import { MutableGraphDataSource } from './mutable-graph-data-source';

/**
 * The one way services reach graph data: a data source scoped to the caller's workspace. Today it
 * is the store's own; the live overlay (unsaved state from the sync server) will wrap it here, so
 * every consumer (retriever, tools, agent, export) sees what the user sees without changing.
 */
@Injectable()
export class GraphDataSourceFactory {
  constructor(@Inject(GRAPH_STORE) private readonly store: GraphStore) {}

  forWorkspace(workspace: string): MutableGraphDataSource {
    return this.store.forWorkspace(workspace);
  }
}
