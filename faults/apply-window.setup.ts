/**
 * Instrumentation of a service process for faults/apply-window.scenario.ts, loaded by test-app.child.ts as its setup
 * module (TestAppProcessOptions.setupModule). Once armed by the parent (`{ applyWindow: 'arm', after, kind }`), the
 * `after`-th operation the process applies (not a replay) reports `{ applyWindow: 'holding', operationId }` and holds
 * the request there, after the operation's transaction committed and before anything commits its outcome to the
 * thread: the window a crash threatens. The parent kills the process during the hold.
 */
import type { INestApplication } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { OperationService, DecidedOperation } from '../src/changes/operation.service';

/** Longer than the parent needs to kill the process once told. */
const HOLD_MS = 5_000;

interface Arming {
  kind: 'apply' | 'revert';
  after: number;
  seen: number;
}

export function beforeListen(app: INestApplication): void {
  const operations = app.get(OperationService, { strict: false });
  let armed: Arming | null = null;
  process.on('message', (message: { applyWindow?: string; after?: number; kind?: Arming['kind'] }) => {
    if (message?.applyWindow === 'arm') armed = { kind: message.kind ?? 'apply', after: message.after ?? 1, seen: 0 };
    if (message?.applyWindow === 'disarm') {
      armed = null;
      process.send?.({ applyWindow: 'disarmed' });
    }
  });
  const hold = async (kind: Arming['kind'], decided: DecidedOperation): Promise<void> => {
    if (!armed || armed.kind !== kind || decided.replayed || decided.record.status !== 'applied') return;
    armed.seen += 1;
    if (armed.seen < armed.after) return;
    armed = null;
    process.send?.({ applyWindow: 'holding', operationId: decided.record.operationId });
    await sleep(HOLD_MS);
  };
  const apply = operations.apply.bind(operations);
  operations.apply = async (decision) => {
    const decided = await apply(decision);
    await hold('apply', decided);
    return decided;
  };
  const revert = operations.revert.bind(operations);
  operations.revert = async (request) => {
    const decided = await revert(request);
    await hold('revert', decided);
    return decided;
  };
}
