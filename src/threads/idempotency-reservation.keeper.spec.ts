import { LogEntry } from '../observability/log-entry';
import { resetLogSink, setLogSink } from '../observability/logger';
import { IdempotencyReservationKeeper } from './idempotency-reservation.keeper';
import type { ThreadRepository } from './thread.repository';

describe(IdempotencyReservationKeeper.name, () => {
  const scope = { workspace: 'acme', userId: 'alice', key: 'k1' };
  let logs: LogEntry[];

  beforeEach(() => {
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(() => resetLogSink());

  function keeperWith(renew: jest.Mock): IdempotencyReservationKeeper {
    return new IdempotencyReservationKeeper({ renewIdempotencyKey: renew } as unknown as ThreadRepository, 120_000, () => 5_000);
  }

  it('renews for another hold from now, and forgets a reservation that is gone', async () => {
    const renew = jest.fn().mockResolvedValueOnce(true).mockResolvedValueOnce(false);
    const keeper = keeperWith(renew);
    keeper.keep(scope);
    keeper.keep(scope);
    expect(keeper.size).toBe(1);
    expect(await keeper.renew(scope)).toBe(true);
    expect(renew).toHaveBeenCalledWith(scope, 120_000, 5_000);
    expect(await keeper.renew(scope)).toBe(false);
    expect(keeper.size).toBe(0);
    expect(logs.map((entry) => entry.event)).toEqual(['idempotency_reservation_lost']);
    expect(JSON.stringify(logs)).not.toContain('k1');
  });

  it('keeps trying after a store failure, and says nothing when the request already finished', async () => {
    const renew = jest.fn().mockRejectedValueOnce(new Error('SQLITE_BUSY')).mockResolvedValue(false);
    const keeper = keeperWith(renew);
    keeper.keep(scope);
    expect(await keeper.renew(scope)).toBe(false);
    expect(keeper.size).toBe(1);
    keeper.stop(scope);
    expect(await keeper.renew(scope)).toBe(false);
    expect(logs.map((entry) => entry.event)).toEqual(['idempotency_reservation_renew_failed']);
  });

  it('renews on its own every third of the hold until stopped', async () => {
    jest.useFakeTimers();
    try {
      const renew = jest.fn().mockResolvedValue(true);
      const keeper = keeperWith(renew);
      keeper.keep(scope);
      jest.advanceTimersByTime(120_000);
      expect(renew).toHaveBeenCalledTimes(3);
      keeper.stopAll();
      jest.advanceTimersByTime(120_000);
      expect(renew).toHaveBeenCalledTimes(3);
    } finally {
      jest.useRealTimers();
    }
  });
});
