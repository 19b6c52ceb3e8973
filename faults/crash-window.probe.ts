/**
 * The crash section's aiming (faults/crash.scenario.ts), loaded by the service's child process as its
 * setup module (TestAppProcessOptions.setupModule): it holds the process inside the window a kill is
 * aimed at, so the SIGKILL lands there and not a few milliseconds later. Armed by a file the scenario
 * writes into the data directory (one-shot), it answers with a `.hit` file written synchronously, then:
 *   fault.commit  blocks the event loop INSIDE the SQLite transaction of the next thread commit (a round
 *                 or a new conversation's first round): the kill lands between BEGIN and COMMIT;
 *   fault.tool    holds the next read tool's execution, after the model's tool call and before the
 *                 round that carries its result is committed: the kill lands mid tool round.
 * Nothing is held unless armed: the rest of the scenario runs the service as it is.
 */
import type { INestApplication } from '@nestjs/common';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ReadToolExecutor } from '../src/ai/tools/read/read-tool.executor';
import type { AppConfig } from '../src/config/app-config';
import { APP_CONFIG } from '../src/config/app-config.token';
import { SqliteThreadRepository } from '../src/threads/sqlite/sqlite-thread.repository';

/** Longer than any kill takes to arrive: the process is still held when it dies. */
const HOLD_MS = 5_000;

export type FaultHook = 'commit' | 'tool';

export function armFile(dataDir: string, hook: FaultHook): string {
  return path.join(dataDir, `fault.${hook}`);
}

export function hitFile(dataDir: string, hook: FaultHook): string {
  return path.join(dataDir, `fault.${hook}.hit`);
}

let dataDir: string | null = null;

/** Consumes the arming of `hook` and says it was hit; false when it was not armed. */
function fire(hook: FaultHook): boolean {
  if (!dataDir || !existsSync(armFile(dataDir, hook))) return false;
  rmSync(armFile(dataDir, hook), { force: true });
  writeFileSync(hitFile(dataDir, hook), String(Date.now()));
  return true;
}

type CommitRoundIn = (this: SqliteThreadRepository, ...args: unknown[]) => unknown;
const repository = SqliteThreadRepository.prototype as unknown as { commitRoundIn: CommitRoundIn };
const commitRoundIn = repository.commitRoundIn;
repository.commitRoundIn = function held(this: SqliteThreadRepository, ...args: unknown[]): unknown {
  // Synchronous, as the transaction it runs in: nothing else of the process runs until the kill.
  if (fire('commit')) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, HOLD_MS);
  return commitRoundIn.apply(this, args);
};

const execute = ReadToolExecutor.prototype.execute;
ReadToolExecutor.prototype.execute = async function held(
  this: ReadToolExecutor,
  ...args: Parameters<ReadToolExecutor['execute']>
): Promise<string> {
  if (fire('tool')) await sleep(HOLD_MS);
  return execute.apply(this, args);
};

export function beforeListen(app: INestApplication): void {
  const config = app.get<AppConfig>(APP_CONFIG);
  if (config.store.kind === 'sqlite') dataDir = config.store.dataDir;
}
