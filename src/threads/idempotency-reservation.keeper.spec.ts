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
    return new IdempotencyReservationKeeper(
      { renewIdempotencyKey: renew } as unknown as ThreadRepository,
      120_000,
      () => 5_000,
    );
  }

  it('renews with its token for another hold from now, and stops renewing a reservation that is gone', async () => {
    const renew = jest.fn().mockResolvedValueOnce(true).mockResolvedValueOnce(false);
    const keeper = keeperWith(renew);
    keeper.keep(scope, 'token-1');
    expect(keeper.size).toBe(1);
    expect(await keeper.renew(scope)).toBe(true);
    expect(renew).toHaveBeenCalledWith(scope, 'token-1', 120_000, 5_000);
    expect(await keeper.renew(scope)).toBe(false);
    expect(keeper.size).toBe(0);
    expect(logs.map((entry) => entry.event)).toEqual(['idempotency_reservation_lost']);
    expect(JSON.stringify(logs)).not.toContain('k1');
    // The token stays: only its holder may still complete or release the reservation.
    expect(keeper.take(scope)).toBe('token-1');
    expect(keeper.take(scope)).toBeUndefined();
  });

  it('keeps the latest token when the same key is reserved again by this process', async () => {
    const renew = jest.fn().mockResolvedValue(true);
    const keeper = keeperWith(renew);
    keeper.keep(scope, 'token-1');
    keeper.keep(scope, 'token-2');
    expect(keeper.size).toBe(1);
    await keeper.renew(scope);
    expect(renew).toHaveBeenCalledWith(scope, 'token-2', 120_000, 5_000);
    expect(keeper.take(scope)).toBe('token-2');
  });

  it('keeps trying after a store failure, and says nothing once the request finished', async () => {
    const renew = jest.fn().mockRejectedValueOnce(new Error('SQLITE_BUSY')).mockResolvedValue(false);
    const keeper = keeperWith(renew);
    keeper.keep(scope, 'token-1');
    expect(await keeper.renew(scope)).toBe(false);
    expect(keeper.size).toBe(1);
    expect(keeper.take(scope)).toBe('token-1');
    expect(await keeper.renew(scope)).toBe(false);
    expect(renew).toHaveBeenCalledTimes(1);
    expect(logs.map((entry) => entry.event)).toEqual(['idempotency_reservation_renew_failed']);
  });

  it('renews on its own every third of the hold until stopped, and keeps the tokens of requests still finishing', async () => {
    jest.useFakeTimers();
    try {
      const renew = jest.fn().mockResolvedValue(true);
      const keeper = keeperWith(renew);
      keeper.keep(scope, 'token-1');
      jest.advanceTimersByTime(120_000);
      expect(renew).toHaveBeenCalledTimes(3);
      keeper.stopAll();
      jest.advanceTimersByTime(120_000);
      expect(renew).toHaveBeenCalledTimes(3);
      expect(keeper.size).toBe(0);
      expect(keeper.take(scope)).toBe('token-1');
    } finally {
      jest.useRealTimers();
    }
  });
});
