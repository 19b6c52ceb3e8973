import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort } from './free-port';

const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';

/**
 * A real `redis-server` (Debian's, `apt-get install -y redis-server`; `.ci/run` installs it) for one
 * suite: loopback only, on a free port, in a temporary directory, without persistence. `kill()` stops
 * it the hard way mid-test (SIGKILL, as a crash), `restart()` brings it back on the same port (empty),
 * `freeze()` / `thaw()` suspend and resume it (SIGSTOP / SIGCONT: connections stay open, nothing answers),
 * `stop()` ends it and removes its directory. No mock: the service's own ioredis clients talk to it.
 */
export class TestRedisServer {
  private process: ChildProcess | null = null;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(): Promise<TestRedisServer> {
    if (!existsSync(REDIS_SERVER))
      throw new Error(`No redis-server at ${REDIS_SERVER}: apt-get install -y redis-server (or set REDIS_SERVER_PATH)`);
    const server = new TestRedisServer(await freePort(), mkdtempSync(path.join(tmpdir(), 'test-redis-')));
    await server.launch();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.process !== null;
  }

  /** Runs a redis-cli command against it and returns its output (for assertions on what is stored). */
  cli(...args: string[]): string {
    return execFileSync('redis-cli', ['-p', String(this.port), ...args], { encoding: 'utf8' }).trim();
  }

  /** SIGKILL: the server disappears as in a crash (its clients see their connections reset). */
  async kill(): Promise<void> {
    await this.terminate('SIGKILL');
  }

  /** SIGSTOP: the server stops answering, its connections stay open (a stalled host, a long fork). Never call cli() meanwhile. */
  freeze(): void {
    this.process?.kill('SIGSTOP');
  }

  /** SIGCONT: it answers again, what was sent meanwhile first. */
  thaw(): void {
    this.process?.kill('SIGCONT');
  }

  /** Starts it again on the same port, empty. */
  async restart(): Promise<void> {
    if (!this.process) await this.launch();
  }

  async stop(): Promise<void> {
    await this.terminate('SIGTERM');
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async launch(): Promise<void> {
    const child = spawn(
      REDIS_SERVER,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', '--appendonly', 'no'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    this.process = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10 s: ${output}`)), 10_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          child.stdout?.removeAllListeners('data');
          child.stdout?.resume();
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code} before it was ready: ${output}`));
      });
    });
    child.once('exit', () => {
      if (this.process === child) this.process = null;
    });
  }

  private async terminate(signal: NodeJS.Signals): Promise<void> {
    const child = this.process;
    if (!child) return;
    this.process = null;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }
}
