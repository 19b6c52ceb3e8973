import type { GraphChangeEvent } from '../../graph/graph-change.event';
import type { GraphDataSourceFactory } from '../../graph/graph-data-source.factory';
import type { NodeMention } from '../memory-record';
import type { MemoryRepository } from '../memory.repository';
import { nodeContentFingerprint } from '../node-content.fingerprint';

/**
 * Marks stale the memory records whose mentioned nodes changed or were deleted since they were
 * written (the records' `stale` flag). No model is involved: the fingerprints stored with each
 * mention are compared with the nodes' content now.
 *  - `stored` (change feed saves, applied actions, writes through the data source): the nodes named
 *    by the event, created, updated or deleted;
 *  - `imported` (a graph replaced, the demo seed): every node the graph's records mention;
 *  - `live` (unsaved edits in the overlay): nothing; the save that follows is a `stored` change.
 * A move or a resize keeps a node's fingerprint, so it makes nothing stale.
 */
export class MemoryStalenessMarker {
  constructor(
    private readonly repository: MemoryRepository,
    private readonly graphs: GraphDataSourceFactory,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The records marked stale by this change (0 when it touches nothing remembered). */
  async apply(event: GraphChangeEvent): Promise<number> {
    if (event.kind === 'live') return 0;
    const keys =
      event.kind === 'imported' ? 'all' : [...new Set([...event.nodeKeys, ...(event.deletedNodeKeys ?? [])])];
    if (keys !== 'all' && keys.length === 0) return 0;
    const mentioned = await this.repository.mentions(event.workspace, event.graphKey, keys);
    if (mentioned.length === 0) return 0;
    const nodes = await this.graphs
      .forWorkspace(event.workspace)
      .getNodesByKeys(event.graphKey, [...new Set(mentioned.map((mention) => mention.key))]);
    const current = new Map(nodes.map((node) => [node._key, nodeContentFingerprint(node)]));
    const outdated: NodeMention[] = mentioned.filter((mention) => current.get(mention.key) !== mention.fingerprint);
    return this.repository.markStale(event.workspace, event.graphKey, outdated, this.clock());
  }
}
