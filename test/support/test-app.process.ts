import { ChildProcess, fork, Serializable } from 'node:child_process';
import * as path from 'node:path';
import type { TestAppProcessStats } from './test-app.child';

export type { TestAppProcessStats } from './test-app.child';

export interface TestAppProcessOptions {
  timeoutMs?: number;
  /** Extra node flags for the child (e.g. --expose-gc so stats() can measure retained memory). */
  execArgv?: string[];
  /**
   * A module the child loads before booting the app (absolute path, compiled like this file): its
   * exported `beforeListen(app)`, if any, runs before the app listens (instrumentation, e.g. the
   * overhead bench's receipt timing), and it may answer its own messages (see request()).
   */
  setupModule?: string;
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
    const child = fork(
      path.join(__dirname, `test-app.child${extension}`),
      options.setupModule ? [options.setupModule] : [],
      {
        execArgv: [
          ...(extension === '.ts' ? ['--require', path.join(__dirname, 'swc-register.js')] : []),
          ...(options.execArgv ?? []),
        ],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
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

  /** Kills the process with `signal` (SIGKILL: no cleanup, as a crash) and resolves once it has exited. */
  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill(signal);
    });
  }

  /**
   * The child's memory (after a full GC when it runs with --expose-gc) and its event-loop delay
   * since the previous call.
   */
  stats(): Promise<TestAppProcessStats> {
    return this.request('stats', (reply) => (reply as { stats?: TestAppProcessStats }).stats);
  }

  /**
   * Sends `message` to the child and resolves with the first reply `accept` maps to a value (other
   * messages are left to other listeners): 'stats', or a message the setup module answers.
   */
  request<T>(message: Serializable, accept: (reply: unknown) => T | undefined): Promise<T> {
    return new Promise((resolve) => {
      const onMessage = (reply: unknown) => {
        const value = typeof reply === 'object' && reply !== null ? accept(reply) : undefined;
        if (value === undefined) return;
        this.child.off('message', onMessage);
        resolve(value);
      };
      this.child.on('message', onMessage);
      this.child.send(message);
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
