import type { ThreadTurnPlace, ThreadTurnQueue, ThreadTurnTicket } from './thread-turn.queue';

interface Waiting {
  readonly place: ThreadTurnPlace;
}

/** The lines of this instance's threads (one instance, or Redis down: each instance serves alone). */
export class InMemoryThreadTurnQueue implements ThreadTurnQueue {
  private readonly lines = new Map<string, Waiting[]>();

  join(threadId: string, place: ThreadTurnPlace, maxWaiting: number): Promise<ThreadTurnTicket | null> {
    const line = this.lines.get(threadId) ?? [];
    if (place === 'back' && line.filter((waiting) => waiting.place === 'back').length >= maxWaiting)
      return Promise.resolve(null);
    const entry: Waiting = { place };
    // Fronts keep their arrival order among themselves, ahead of every back.
    const at = place === 'front' ? line.filter((waiting) => waiting.place === 'front').length : line.length;
    line.splice(at, 0, entry);
    this.lines.set(threadId, line);
    return Promise.resolve({
      isFirst: () => Promise.resolve(this.lines.get(threadId)?.[0] === entry),
      leave: () => {
        const current = this.lines.get(threadId);
        const index = current?.indexOf(entry) ?? -1;
        if (current && index >= 0) {
          current.splice(index, 1);
          if (current.length === 0) this.lines.delete(threadId);
        }
        return Promise.resolve();
      },
    });
  }

  /** Messages waiting on this instance, all threads together. */
  get waiting(): number {
    let count = 0;
    for (const line of this.lines.values()) count += line.length;
    return count;
  }
}
