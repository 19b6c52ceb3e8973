/**
 * Where a message waits for a thread held by another run (multitaskStrategy `enqueue`, `interrupt`, `rollback`):
 * `back` behind every waiting message (enqueue), or `front` ahead of the enqueued ones but behind the other fronts
 * (interrupt, rollback: they stop the active run and run next, in the order they came).
 */
export type ThreadTurnPlace = 'back' | 'front';

/** A message's place in a thread's line (ThreadTurnQueue.join). */
export interface ThreadTurnTicket {
  /** No waiting message is ahead of this one (a ticket of a dead instance counts no more): it may take the lease. */
  isFirst(): Promise<boolean>;
  /** Leaves the line (its run got the lease, or gave up). Idempotent; never throws. */
  leave(): Promise<void>;
}

/**
 * The line of messages waiting for each thread, shared by every instance with REDIS_URL (in this instance's memory
 * without it). Only the first of the line may take the thread's lease, so messages run in the order they joined.
 */
export interface ThreadTurnQueue {
  /** A place in the thread's line; null when `place` is `back` and `maxWaiting` enqueued messages wait already. */
  join(threadId: string, place: ThreadTurnPlace, maxWaiting: number): Promise<ThreadTurnTicket | null>;
}
