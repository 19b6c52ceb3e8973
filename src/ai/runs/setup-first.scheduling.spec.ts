import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { RunSetupGate, RunSetupSlot } from './run-setup.gate';
import { SetupFirstScheduling } from './setup-first.scheduling';

/** A gate with `waiting` runs queued behind one holding the only slot; `admitAll` lets them all through. */
async function gateWithWaitingRuns(waiting: number): Promise<{ gate: RunSetupGate; admitAll(): Promise<void> }> {
  const gate = new RunSetupGate(1);
  const holder = await gate.enter();
  const queued = Array.from({ length: waiting }, () => gate.enter());
  return {
    gate,
    admitAll: async () => {
      holder.release();
      for (const entered of queued) ((await entered) as RunSetupSlot).release();
    },
  };
}

/** Whether `promise` has settled, after the microtasks queued so far ran. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return settled;
}

describe(SetupFirstScheduling.name, () => {
  it('never holds a chunk back while no run waits for its setup', () => {
    const scheduling = new SetupFirstScheduling(new RunSetupGate());
    const pacer = scheduling.pacer(new AbortController().signal);
    for (let chunk = 0; chunk < 50; chunk++) expect(pacer.beforeChunk()).toBeNull();
  });

  it('relays the first chunk at once, then holds the stream until no run waits for its setup', async () => {
    const { gate, admitAll } = await gateWithWaitingRuns(2);
    const pacer = new SetupFirstScheduling(gate, { minWaiting: 0 }).pacer(new AbortController().signal);
    expect(pacer.beforeChunk()).toBeNull();
    const wait = pacer.beforeChunk() as Promise<void>;
    expect(wait).toBeInstanceOf(Promise);
    await sleep(20);
    expect(await isSettled(wait)).toBe(false);
    await admitAll();
    await expect(wait).resolves.toBeUndefined();
    expect(pacer.beforeChunk()).toBeNull();
  });

  it('gives way for at most maxMs per upstream call in all, then relays even while runs still wait', async () => {
    const { gate, admitAll } = await gateWithWaitingRuns(1);
    const pacer = new SetupFirstScheduling(gate, { maxMs: 40, minWaiting: 0 }).pacer(new AbortController().signal);
    void pacer.beforeChunk();
    await pacer.beforeChunk();
    expect(gate.queued).toBe(1);
    expect(pacer.beforeChunk()).toBeNull();
    // Another call of the same run has its own budget.
    const next = new SetupFirstScheduling(gate, { maxMs: 40, minWaiting: 0 }).pacer(new AbortController().signal);
    void next.beforeChunk();
    expect(next.beforeChunk()).toBeInstanceOf(Promise);
    await admitAll();
  });

  it('lets a stopped run go on at once', async () => {
    const { gate, admitAll } = await gateWithWaitingRuns(1);
    const stop = new AbortController();
    const pacer = new SetupFirstScheduling(gate, { minWaiting: 0 }).pacer(stop.signal);
    void pacer.beforeChunk();
    const wait = pacer.beforeChunk() as Promise<void>;
    stop.abort();
    await expect(wait).resolves.toBeUndefined();
    expect(pacer.beforeChunk()).toBeNull();
    await admitAll();
  });

  it('lets at most resumedPerTurn streams go on per turn of the event loop', async () => {
    const { gate, admitAll } = await gateWithWaitingRuns(1);
    const scheduling = new SetupFirstScheduling(gate, { maxMs: 10_000, minWaiting: 0, resumedPerTurn: 3 });
    const resumed: number[] = [];
    let turn = 0;
    const waits = Array.from({ length: 8 }, () => {
      const pacer = scheduling.pacer(new AbortController().signal);
      void pacer.beforeChunk();
      return (pacer.beforeChunk() as Promise<void>).then(() => resumed.push(turn));
    });
    await admitAll();
    while (resumed.length < 8) {
      await nextTurn();
      turn++;
    }
    await Promise.all(waits);
    const perTurn = new Map<number, number>();
    for (const at of resumed) perTurn.set(at, (perTurn.get(at) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(3);
    expect(perTurn.size).toBeGreaterThanOrEqual(3);
  });

  it('gives way only while more than minWaiting runs wait, and goes on once no more do', async () => {
    const { gate, admitAll } = await gateWithWaitingRuns(3);
    const pacer = new SetupFirstScheduling(gate, { minWaiting: 3 }).pacer(new AbortController().signal);
    void pacer.beforeChunk();
    expect(pacer.beforeChunk()).toBeNull();
    const longer = await gateWithWaitingRuns(3);
    const patient = new SetupFirstScheduling(longer.gate, { minWaiting: 2 }).pacer(new AbortController().signal);
    void patient.beforeChunk();
    const wait = patient.beforeChunk() as Promise<void>;
    expect(wait).toBeInstanceOf(Promise);
    await admitAll();
    await longer.admitAll();
    await expect(wait).resolves.toBeUndefined();
  });

  it('holds at most maxHeld streams at once; the others are relayed as they come', async () => {
    const { gate, admitAll } = await gateWithWaitingRuns(1);
    const scheduling = new SetupFirstScheduling(gate, { minWaiting: 0, maxHeld: 2 });
    const pacers = Array.from({ length: 3 }, () => scheduling.pacer(new AbortController().signal));
    for (const pacer of pacers) void pacer.beforeChunk();
    const first = pacers[0].beforeChunk() as Promise<void>;
    const second = pacers[1].beforeChunk() as Promise<void>;
    expect([first, second].every((wait) => wait instanceof Promise)).toBe(true);
    expect(pacers[2].beforeChunk()).toBeNull();
    await admitAll();
    await Promise.all([first, second]);
  });

  it('never gives way with maxMs 0 (AI_SETUP_FIRST_MAX_MS=0)', async () => {
    const { gate, admitAll } = await gateWithWaitingRuns(3);
    const pacer = new SetupFirstScheduling(gate, { maxMs: 0, minWaiting: 0 }).pacer(new AbortController().signal);
    for (let chunk = 0; chunk < 5; chunk++) expect(pacer.beforeChunk()).toBeNull();
    await admitAll();
  });

  it('refuses a negative budget and a number of streams per turn that is not a positive integer', () => {
    expect(() => new SetupFirstScheduling(new RunSetupGate(), { maxMs: -1 })).toThrow(RangeError);
    expect(() => new SetupFirstScheduling(new RunSetupGate(), { resumedPerTurn: 0 })).toThrow(RangeError);
    expect(() => new SetupFirstScheduling(new RunSetupGate(), { minWaiting: -1 })).toThrow(RangeError);
    expect(() => new SetupFirstScheduling(new RunSetupGate(), { maxHeld: 1.5 })).toThrow(RangeError);
  });
});
