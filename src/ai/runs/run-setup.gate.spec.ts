import { setImmediate as nextTurn } from 'node:timers/promises';
import { RunSetupGate, RunSetupSlot } from './run-setup.gate';

/** Counts turns of the event loop (check phases) until stopped. */
function turnCounter(): { readonly turns: number; stop(): void } {
  let turns = 0;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get turns() {
      return turns;
    },
    stop: () => (stopped = true),
  };
}

describe(RunSetupGate.name, () => {
  it('hands a free slot over in a later turn of the event loop, never synchronously', async () => {
    const gate = new RunSetupGate(2);
    const order: string[] = [];
    setImmediate(() => order.push('immediate scheduled before'));
    const entered = gate.enter().then((slot) => {
      order.push('admitted');
      return slot;
    });
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(order).toEqual([]);
    (await entered).release();
    expect(order).toEqual(['immediate scheduled before', 'admitted']);
  });

  it('lets at most `slots` runs set up at once, the others in arrival order, and refuses none', async () => {
    const gate = new RunSetupGate(2);
    const admitted: number[] = [];
    const slots = new Map<number, RunSetupSlot>();
    const runs = Array.from({ length: 7 }, (_, index) =>
      gate.enter().then((slot) => {
        admitted.push(index);
        slots.set(index, slot);
      }),
    );
    await nextTurn();
    await nextTurn();
    expect(admitted).toEqual([0, 1]);
    expect(gate.inSetup).toBe(2);
    expect(gate.queued).toBe(5);

    slots.get(1)!.release();
    slots.get(1)!.release(); // idempotent: frees one slot, not two
    await nextTurn();
    await nextTurn();
    expect(admitted).toEqual([0, 1, 2]);
    expect(gate.inSetup).toBe(2);

    for (let index = 0; index < 7; index++) {
      await nextTurn();
      await nextTurn();
      slots.get(index)?.release();
    }
    await Promise.all(runs);
    expect(admitted).toEqual([0, 1, 2, 3, 4, 5, 6]);
    for (const slot of slots.values()) slot.release();
    expect(gate.inSetup).toBe(0);
    expect(gate.queued).toBe(0);
  });

  it('runs at most `slots` setup steps per turn: a burst of runs that pause between steps leaves turns to others', async () => {
    const gate = new RunSetupGate(2);
    const counter = turnCounter();
    const stepTurns: number[] = [];
    const run = async () => {
      const slot = await gate.enter();
      try {
        stepTurns.push(counter.turns);
        await slot.pause();
        stepTurns.push(counter.turns);
      } finally {
        slot.release();
      }
    };
    await Promise.all(Array.from({ length: 10 }, run));
    counter.stop();
    const perTurn = new Map<number, number>();
    for (const turn of stepTurns) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
    expect(stepTurns).toHaveLength(20);
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(2);
    expect(perTurn.size).toBeGreaterThanOrEqual(10);
  });

  it('tells when at most a number of runs wait: at once when no more do, else once enough have had their slot', async () => {
    const gate = new RunSetupGate(1);
    await expect(gate.waitingAtMost(0)).resolves.toBeUndefined();
    const first = await gate.enter();
    const queued = [gate.enter(), gate.enter(), gate.enter()];
    let atMostOne = false;
    let none = false;
    void gate.waitingAtMost(1).then(() => (atMostOne = true));
    void gate.waitingAtMost(0).then(() => (none = true));
    await expect(gate.waitingAtMost(3)).resolves.toBeUndefined();
    first.release();
    const second = await queued[0];
    await nextTurn();
    expect([atMostOne, none]).toEqual([false, false]);
    second.release();
    const third = await queued[1];
    await nextTurn();
    expect([atMostOne, none]).toEqual([true, false]);
    third.release();
    (await queued[2]).release();
    await nextTurn();
    expect(none).toBe(true);
  });

  it('refuses a number of slots that is not a positive integer', () => {
    expect(() => new RunSetupGate(0)).toThrow(RangeError);
    expect(() => new RunSetupGate(1.5)).toThrow(RangeError);
  });
});
