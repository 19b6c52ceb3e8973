/**
 * Tasks run in later turns of the event loop (setImmediate), in the order they were posted, at most
 * `perTurn` per turn, none dropped: what lets a burst of work wait its turn while timers, socket
 * reads and writes still get theirs. Used for the gateway's incoming requests (SocketMessageInbox)
 * and the streams that go on after giving way to setups (SetupFirstScheduling). A task should not
 * throw: one that does is reported to `onError`, and the next ones run.
 */
export class TurnPacedQueue {
  private readonly tasks: Array<() => void> = [];
  private scheduled = false;

  constructor(
    private readonly perTurn: number,
    private readonly onError: (error: unknown) => void,
  ) {
    if (!Number.isInteger(perTurn) || perTurn < 1)
      throw new RangeError(`perTurn must be a positive integer, got ${perTurn}`);
  }

  /** Tasks waiting. */
  get size(): number {
    return this.tasks.length;
  }

  /** `task` runs in a later turn, after every task posted before it. */
  post(task: () => void): void {
    this.tasks.push(task);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.runSome);
  }

  private readonly runSome = (): void => {
    this.scheduled = false;
    for (let ran = 0; ran < this.perTurn && this.tasks.length > 0; ran++) {
      const task = this.tasks.shift() as () => void;
      try {
        task();
      } catch (error) {
        this.onError(error);
      }
    }
    if (this.tasks.length > 0) this.schedule();
  };
}
