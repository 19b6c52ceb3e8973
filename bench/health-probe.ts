import { fork } from 'node:child_process';
import * as path from 'node:path';

/** A running health-probe child (health-probe.child.ts); `stop()` resolves with its calls' latencies (ms). */
export interface HealthProbe {
  stop(): Promise<number[]>;
}

/** Starts probing `url`'s /health from a process of its own, `gapMs` between calls; resolves once it probes. */
export function startHealthProbe(url: string, gapMs: number): Promise<HealthProbe> {
  const child = fork(path.join(__dirname, `health-probe.child${path.extname(__filename)}`), [url, String(gapMs)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const latencies = new Promise<number[]>((resolve, reject) => {
    child.on('message', (message: { latencies?: number[] }) => {
      if (message?.latencies) resolve(message.latencies);
    });
    child.on('exit', (code) => reject(new Error(`the health probe exited with code ${code} before answering`)));
  });
  return new Promise((resolve, reject) => {
    child.once('message', () =>
      resolve({
        stop: () => {
          child.send('stop');
          return latencies;
        },
      }),
    );
    child.once('error', reject);
  });
}
