import { ChildProcess, fork } from 'node:child_process';
import * as path from 'node:path';

/**
 * The real app in a child process (test-app.child.ts): a second service instance with its own
 * event loop, SQLite connection, caches and leases, as behind a load balancer. Pass DATA_DIR to share
 * the store with another instance; the data directory is never removed by close().
 */
export class TestAppProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static start(env: Record<string, string>, timeoutMs = 20_000): Promise<TestAppProcess> {
    const child = fork(path.join(__dirname, 'test-app.child.ts'), [], {
      execArgv: ['--require', path.join(__dirname, 'swc-register.js')],
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
