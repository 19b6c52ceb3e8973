import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ManualClock } from '../../test/support/manual-clock';
import { openSqliteDatabase } from '../database/sqlite/sqlite-database.opener';
import { resetLogSink, setLogSink } from '../observability/logger';
import type { StoredAutomation } from './automation';
import type { AutomationRepository } from './automation.repository';
import { RunLeaseKeeper, RunLeaseLoss } from './run-lease.keeper';
import { SqliteAutomationRepository } from './sqlite/sqlite-automation.repository';

const T0 = 1_800_000_000_000;
const LEASE_MS = 120_000;
const NO_LIMITS = { total: 100, perWorkspace: 100 };

/** The real SQLite store, whose renewals can be made to fail (the store unreachable) or hang. */
class FlakyStore {
  failing = false;
  hanging = false;
  constructor(readonly store: SqliteAutomationRepository) {}

  asRepository(): AutomationRepository {
    return new Proxy(this.store, {
      get: (target, property, receiver) => {
        if (property !== 'renewRunLease') return Reflect.get(target, property, receiver) as unknown;
        return (...args: Parameters<AutomationRepository['renewRunLease']>) => {
          if (this.hanging) return new Promise<boolean>(() => undefined);
          if (this.failing) return Promise.reject(new Error('connect ECONNREFUSED'));
          return target.renewRunLease(...args);
        };
      },
    });
  }
}

describe(RunLeaseKeeper.name, () => {
  let dataDir: string;
  let db: ReturnType<typeof openSqliteDatabase>;
  let flaky: FlakyStore;
  let clock: ManualClock;
  let losses: RunLeaseLoss[];
  const automation: StoredAutomation = {
    automationId: 'aut_1',
    workspace: 'w',
    userId: 'u',
    userRole: 'editor',
    name: 'n',
    graphKey: 'g',
    prompt: 'p',
    schedule: { cron: '0 9 * * *', timezone: 'UTC' },
    enabled: true,
    nextRunTime: T0,
    disabledReason: null,
    runningRunId: null,
    runLeaseExpiresAt: null,
    createdTime: T0,
    updatedTime: T0,
  };

  beforeEach(async () => {
    setLogSink(() => undefined);
    dataDir = mkdtempSync(path.join(tmpdir(), 'lease-keeper-'));
    db = openSqliteDatabase(dataDir);
    flaky = new FlakyStore(new SqliteAutomationRepository(db));
    clock = new ManualClock(T0);
    losses = [];
    await flaky.store.insert(automation);
    await flaky.store.claimRun(
      {
        workspace: 'w',
        automationId: 'aut_1',
        run: { runId: 'run_1', trigger: 'manual', slotTime: null, startedTime: T0 },
        leaseExpiresAt: T0 + LEASE_MS,
        limits: NO_LIMITS,
      },
      T0,
    );
  });
  afterEach(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
    resetLogSink();
  });

  const keeper = () =>
    new RunLeaseKeeper(
      flaky.asRepository(),
      { workspace: 'w', automationId: 'aut_1', runId: 'run_1' },
      LEASE_MS,
      clock,
      (reason) => losses.push(reason),
    );

  it('renews the lease while the store answers, for as long as the run lasts', async () => {
    const lease = keeper();
    for (let tick = 0; tick < 10; tick += 1) {
      clock.advance(LEASE_MS / 3);
      await lease.tick();
    }
    expect(losses).toEqual([]);
    expect((await flaky.store.get('w', 'aut_1'))?.runLeaseExpiresAt).toBe(clock.now() + LEASE_MS);
  });

  it('stops the run when renewals fail, before the lease runs out and another instance may take it over', async () => {
    const lease = keeper();
    flaky.failing = true;
    clock.advance(LEASE_MS / 3);
    await lease.tick();
    expect(losses).toEqual([]); // one failure: the next attempt still comes in time
    clock.advance(LEASE_MS / 3);
    await lease.tick();
    expect(losses).toEqual(['unrenewable']);
    expect(clock.now()).toBeLessThan(T0 + LEASE_MS);
  });

  it('stops the run when a renewal hangs past the same deadline', async () => {
    const lease = keeper();
    flaky.hanging = true;
    clock.advance(LEASE_MS / 3);
    void lease.tick();
    clock.advance(LEASE_MS / 3);
    await lease.tick();
    expect(losses).toEqual(['unrenewable']);
  });

  it('stops the run at once when another instance holds the automation', async () => {
    const lease = keeper();
    // The lease ran out (this instance stalled) and another run claimed the automation.
    await flaky.store.claimRun(
      {
        workspace: 'w',
        automationId: 'aut_1',
        run: { runId: 'run_2', trigger: 'manual', slotTime: null, startedTime: T0 + LEASE_MS + 1 },
        leaseExpiresAt: T0 + 2 * LEASE_MS,
        limits: NO_LIMITS,
      },
      T0 + LEASE_MS + 1,
    );
    await lease.tick();
    expect(losses).toEqual(['taken_over']);
    await lease.tick();
    expect(losses).toEqual(['taken_over']);
  });
});
