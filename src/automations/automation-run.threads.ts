/**
 * The runs executing on this instance, by their thread (AutomationRunner writes it as soon as a run's thread exists,
 * AutomationRunRecorder reads it when the run ends; the store knows a run's thread only once its outcome is recorded).
 */
export class AutomationRunThreads {
  private readonly runOfThread = new Map<string, string>();

  started(threadId: string, runId: string): void {
    this.runOfThread.set(threadId, runId);
  }

  ended(threadId: string): void {
    this.runOfThread.delete(threadId);
  }

  runOn(threadId: string): string | undefined {
    return this.runOfThread.get(threadId);
  }
}
