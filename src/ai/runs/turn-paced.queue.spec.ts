import { TurnPacedQueue } from './turn-paced.queue';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe(TurnPacedQueue.name, () => {
  it('runs tasks in later turns, in the order posted, at most perTurn per turn, none dropped', async () => {
    const ran: number[] = [];
    const queue = new TurnPacedQueue(2, () => undefined);
    for (let index = 0; index < 5; index++) queue.post(() => ran.push(index));
    expect(ran).toEqual([]);
    expect(queue.size).toBe(5);
    await nextTurn();
    expect(ran).toEqual([0, 1]);
    await nextTurn();
    expect(ran).toEqual([0, 1, 2, 3]);
    await nextTurn();
    expect(ran).toEqual([0, 1, 2, 3, 4]);
    expect(queue.size).toBe(0);
  });

  it('reports a task that throws and runs the next ones', async () => {
    const errors: unknown[] = [];
    const ran: string[] = [];
    const queue = new TurnPacedQueue(3, (error) => errors.push(error));
    queue.post(() => {
      throw new Error('boom');
    });
    queue.post(() => ran.push('after'));
    await nextTurn();
    expect(ran).toEqual(['after']);
    expect(errors).toEqual([new Error('boom')]);
  });

  it('refuses a batch size that is not a positive integer', () => {
    expect(() => new TurnPacedQueue(0, () => undefined)).toThrow(RangeError);
    expect(() => new TurnPacedQueue(1.5, () => undefined)).toThrow(RangeError);
  });
});
