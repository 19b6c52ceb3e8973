import type { GraphChangeNotifier } from '../../graph/graph-change.notifier';

/**
 * Whether a graph may have changed while a memory record was being written. ThreadMemoryWriter reads the
 * fingerprints of the nodes a record mentions, then inserts it; a change landing in between is marked by its own
 * staleness check only when that check runs after the insert. Every stored change or import this instance hears of
 * (its own, and the others' relayed with REDIS_URL) moves its graph's count at once, before its check starts: a
 * count unchanged over the write means any change made meanwhile is checked after the insert, so the nodes need no
 * second read. With several instances a change made elsewhere is checked there, and its relayed copy may reach this
 * instance after the insert: every write is then read again (`changedSince` always true).
 */
export class GraphChangeWatch {
  private readonly counts = new Map<string, number>();
  private readonly unsubscribe: () => void;

  /** `singleInstance`: no other instance writes the graphs (no REDIS_URL), so every change is heard here at once. */
  constructor(
    notifier: GraphChangeNotifier,
    private readonly singleInstance: boolean,
  ) {
    this.unsubscribe = notifier.subscribe((event) => {
      if (event.kind === 'live') return; // the overlay: the store, which fingerprints are read from, did not change
      const id = graphId(event.workspace, event.graphKey);
      this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
    });
  }

  /** The graph's count now: taken before the nodes are read. */
  mark(workspace: string, graphKey: string): number {
    return this.counts.get(graphId(workspace, graphKey)) ?? 0;
  }

  /** True when the graph may have changed since `mark` (after the write: its nodes are then read again). */
  changedSince(workspace: string, graphKey: string, mark: number): boolean {
    return !this.singleInstance || this.mark(workspace, graphKey) !== mark;
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }
}

function graphId(workspace: string, graphKey: string): string {
  return `${workspace}\u0000${graphKey}`;
}
