import { ChildProcess, fork } from 'node:child_process';
import * as path from 'node:path';
import type { TestAppProcessStats } from './test-app.child';

export type { TestAppProcessStats } from './test-app.child';

export interface TestAppProcessOptions {
  timeoutMs?: number;
  /** Extra node flags for the child (e.g. --expose-gc so stats() can measure retained memory). */
  execArgv?: string[];
}

/**
 * The real app in a child process (test-app.child.ts): a second service instance with its own
 * event loop, SQLite connection, caches and leases, as behind a load balancer. Pass DATA_DIR to share
 * the store with another instance; the data directory is never removed by close(). Runs from the
 * TypeScript sources (through swc-register.js) or, when this file itself is compiled (dist/, the
 * benches), from the compiled child.
 */
export class TestAppProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static start(env: Record<string, string>, options: TestAppProcessOptions = {}): Promise<TestAppProcess> {
    const timeoutMs = options.timeoutMs ?? 20_000;
    const extension = path.extname(__filename);
    const child = fork(path.join(__dirname, `test-app.child${extension}`), [], {
      execArgv: [...(extension === '.ts' ? ['--require', path.join(__dirname, 'swc-register.js')] : []), ...(options.execArgv ?? [])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`TestAppProcess: no URL within ${timeoutMs} ms`));
      }, timeoutMs);
      child.once('message', (message: { url?: string; error?: string }) => {
        clearTimeout(timer);
        if (message.url) resolve(new TestAppProcess(child, message.url));
        else reject(new Error(`TestAppProcess failed to start: ${message.error}`));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`TestAppProcess exited with ${code} before starting`));
      });
      child.send(env);
    });
  }

  get pid(): number {
    return this.child.pid as number;
  }

  /**
   * The child's memory (after a full GC when it runs with --expose-gc) and its event-loop delay
   * since the previous call.
   */
  stats(): Promise<TestAppProcessStats> {
    return new Promise((resolve) => {
      const onMessage = (message: { stats?: TestAppProcessStats }) => {
        if (!message.stats) return;
        this.child.off('message', onMessage);
        resolve(message.stats);
      };
      this.child.on('message', onMessage);
      this.child.send('stats');
    });
  }

  /** Graceful close (app.close, data kept); killed if it takes longer than `timeoutMs`. */
  close(timeoutMs = 10_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
      this.child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      this.child.send('close');
    });
  }
}
