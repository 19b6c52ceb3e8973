import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort } from './free-port';
import { setTimeout as sleep } from 'node:timers/promises';

const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
const GATEWAY_CONFIG = path.resolve(__dirname, '../../docker/nginx/graph-ai.conf');

/**
 * The docker-compose gateway (docker/nginx/graph-ai.conf, unchanged but for its addresses) run by Debian's
 * nginx (`apt-get install -y nginx`; `.ci/run` installs it) in front of instances on loopback: each upstream's
 * `server graph-ai:3000;` becomes one `server` per instance, as Docker's DNS makes it one per replica, and it
 * listens on a free loopback port. Runs in the foreground in a temporary prefix; stop() ends it.
 */
export class TestNginxGateway {
  private constructor(
    private readonly process: ChildProcess,
    private readonly dir: string,
    readonly url: string,
  ) {}

  static async start(instanceUrls: string[]): Promise<TestNginxGateway> {
    if (!existsSync(NGINX)) throw new Error(`No nginx at ${NGINX}: apt-get install -y nginx (or set NGINX_PATH)`);
    const dir = mkdtempSync(path.join(tmpdir(), 'test-nginx-'));
    const port = await freePort();
    const servers = instanceUrls.map((url) => `server ${new URL(url).host};`).join('\n  ');
    const site = readFileSync(GATEWAY_CONFIG, 'utf8')
      .replace(/server graph-ai:3000;/g, servers)
      .replace(/listen 80;/, `listen 127.0.0.1:${port};`);
    writeFileSync(path.join(dir, 'graph-ai.conf'), site);
    writeFileSync(
      path.join(dir, 'nginx.conf'),
      [
        'daemon off;',
        'worker_processes 1;',
        `pid ${dir}/nginx.pid;`,
        `error_log ${dir}/error.log warn;`,
        'events { worker_connections 256; }',
        'http {',
        '  access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${dir}/${kind};`),
        `  include ${dir}/graph-ai.conf;`,
        '}',
      ].join('\n'),
    );
    const child = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const gateway = new TestNginxGateway(child, dir, `http://127.0.0.1:${port}`);
    for (let attempt = 0; ; attempt++) {
      if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${stderr}`);
      try {
        await fetch(`${gateway.url}/metrics`);
        return gateway;
      } catch (error) {
        if (attempt > 100) {
          await gateway.stop();
          throw new Error(`nginx did not answer on ${gateway.url}: ${stderr} ${String(error)}`, { cause: error });
        }
        await sleep(50);
      }
    }
  }

  async stop(): Promise<void> {
    if (this.process.exitCode === null) {
      await new Promise<void>((resolve) => {
        this.process.once('exit', () => resolve());
        this.process.kill('SIGTERM'); // fast shutdown: open connections are cut
      });
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
