import type { AlwaysSendList } from './always-send';

/** The lists as written (the store adds updatedTime). */
export type AlwaysSendDocument = Pick<AlwaysSendList, 'nodeKeys' | 'nodeTypes'>;

/**
 * Where each graph's always-sent list is kept (port; adapters: SQLite, ArangoDB). One list per (workspace, graph);
 * every call names its workspace and reads or writes only that workspace's graph.
 */
export interface AlwaysSendRepository {
  /** The graph's list, or null when it never stored one. */
  get(workspace: string, graphKey: string): Promise<AlwaysSendList | null>;
  /** Replaces the graph's list; returns it as stored, with `updatedTime: now`. */
  put(workspace: string, graphKey: string, list: AlwaysSendDocument, now: number): Promise<AlwaysSendList>;
}
