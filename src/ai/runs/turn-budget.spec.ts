import { TurnBudget } from './turn-budget';

/** Resolves in the check phase of a turn after the current one's. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

describe(TurnBudget.name, () => {
  let now: number;
  let budget: TurnBudget;

  beforeEach(() => {
    now = 0;
    budget = new TurnBudget(5, () => now);
  });

  it('lets streams in while the turn has time left', () => {
    expect(budget.pacer().beforeChunk()).toBeNull();
    now = 4.9;
    expect(budget.pacer().beforeChunk()).toBeNull();
    expect(budget.waiting).toBe(0);
  });

  it('puts a stream off to a later turn once the share is spent', async () => {
    expect(budget.pacer().beforeChunk()).toBeNull();
    now = 5;
    const order: string[] = [];
    const wait = budget.pacer().beforeChunk();
    expect(wait).toBeInstanceOf(Promise);
    expect(budget.waiting).toBe(1);
    setImmediate(() => order.push('rest of this turn'));
    await wait?.then(() => order.push('put off'));
    expect(order).toEqual(['rest of this turn', 'put off']);
    expect(budget.waiting).toBe(0);
  });

  it('lets a stream that started in a turn relay all it has in it', () => {
    const started = budget.pacer();
    expect(started.beforeChunk()).toBeNull();
    now = 50;
    expect(started.beforeChunk()).toBeNull();
    expect(started.beforeChunk()).toBeNull();
    expect(budget.pacer().beforeChunk()).toBeInstanceOf(Promise);
  });

  it('gives the next turn a share of its own', async () => {
    const first = budget.pacer();
    expect(first.beforeChunk()).toBeNull();
    now = 20;
    await nextTurn();
    expect(budget.pacer().beforeChunk()).toBeNull();
    // A stream let in during an earlier turn asks again in this one.
    now = 30;
    expect(first.beforeChunk()).toBeInstanceOf(Promise);
  });

  it('resumes the streams first put off first, one at a time while the turn has time left', async () => {
    expect(budget.pacer().beforeChunk()).toBeNull();
    now = 5;
    const order: string[] = [];
    const b = budget.pacer();
    const waits = [
      b.beforeChunk()?.then(() => {
        order.push('b');
        // b's relay takes this turn's whole share: c waits for the next turn.
        now += 6;
        setImmediate(() => order.push('turn after b'));
        expect(b.beforeChunk()).toBeNull(); // let in for the rest of its turn
      }),
      budget
        .pacer()
        .beforeChunk()
        ?.then(() => {
          order.push('c');
          now += 1;
        }),
      budget
        .pacer()
        .beforeChunk()
        ?.then(() => order.push('d')),
    ];
    expect(budget.waiting).toBe(3);
    expect(waits.every((wait) => wait instanceof Promise)).toBe(true);
    await Promise.all(waits as Promise<unknown>[]);
    expect(order).toEqual(['b', 'turn after b', 'c', 'd']);
    expect(budget.waiting).toBe(0);
  });

  it('never puts a stream off with a share of 0', () => {
    const unlimited = new TurnBudget(0, () => now);
    expect(unlimited.pacer().beforeChunk()).toBeNull();
    now = 1_000;
    expect(unlimited.pacer().beforeChunk()).toBeNull();
  });

  it('rejects a negative or non-finite share', () => {
    expect(() => new TurnBudget(-1)).toThrow(RangeError);
    expect(() => new TurnBudget(Number.NaN)).toThrow(RangeError);
  });
});
