import { CollectingSink } from '../ai/http/collecting.sink';

/**
 * Where an automation run's events go: nowhere but its thread (no socket), as a
 * REST run's, except that the runner learns the thread as soon as the run created it.
 */
export class AutomationRunSink extends CollectingSink {
  constructor(private readonly onThread: (threadId: string) => void) {
    super();
  }

  override thread(threadId: string): void {
    super.thread(threadId);
    this.onThread(threadId);
  }
}
