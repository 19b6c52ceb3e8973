/**
 * Something changed in a graph, as the rest of the service needs to know it (retrieval cache,
 * embedding write path). Carries keys, never contents.
 *  - `live`: the graph's live overlay (unsaved state) changed; the store did not.
 *  - `stored`: the store changed; `nodeKeys` are the nodes created or updated, each to embed again if
 *    its embedding text changed; `deletedNodeKeys` (absent when none) the nodes deleted, which need
 *    no embedding but make what was said about them outdated (conversation memory).
 *  - `imported`: the whole graph was replaced (import, demo seed): every node may need a vector.
 * `remote`: the change was made by another instance (RedisGraphChangeRelay): caches are cleared again
 * here, work that the instance making the change does (embedding the nodes) is not done twice.
 */
export type GraphChangeEvent = (
  | { kind: 'live'; workspace: string; graphKey: string }
  | { kind: 'stored'; workspace: string; graphKey: string; nodeKeys: string[]; deletedNodeKeys?: string[] }
  | { kind: 'imported'; workspace: string; graphKey: string }
) & { remote?: true };
