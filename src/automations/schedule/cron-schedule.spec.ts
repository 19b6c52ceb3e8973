import { AppError } from '../../errors/app-error';
import { CronSchedule } from './cron-schedule';

const at = (iso: string) => Date.parse(iso);
const messageOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof AppError ? `${error.code}: ${error.message}` : String(error);
  }
  return 'no error';
};

describe(CronSchedule.name, () => {
  it("gives the next slot in the automation's time zone, across daylight-saving changes", () => {
    const mondays = CronSchedule.parse({ cron: '0 9 * * 1', timezone: 'Europe/Paris' });
    expect(mondays.nextAfter(at('2026-03-28T00:00:00Z'))).toBe(at('2026-03-30T07:00:00Z')); // summer time: 09:00 = 07:00Z
    expect(mondays.nextAfter(at('2026-03-21T00:00:00Z'))).toBe(at('2026-03-23T08:00:00Z')); // winter time: 09:00 = 08:00Z
    expect(mondays.nextAfter(at('2026-03-30T07:00:00Z'))).toBe(at('2026-04-06T07:00:00Z')); // strictly after
  });

  it('fires a local time the spring change skips once, at the next valid time, and a repeated one once', () => {
    const nightly = CronSchedule.parse({ cron: '30 2 * * *', timezone: 'Europe/Paris' });
    // 2026-03-29 02:30 does not exist in Paris.
    const spring = nightly.nextAfter(at('2026-03-28T12:00:00Z')) as number;
    expect(spring).toBeGreaterThanOrEqual(at('2026-03-29T01:00:00Z'));
    expect(spring).toBeLessThan(at('2026-03-29T02:00:00Z'));
    // 2026-10-25 02:30 happens twice in Paris: one slot that day.
    const autumnFirst = nightly.nextAfter(at('2026-10-24T12:00:00Z')) as number;
    const autumnNext = nightly.nextAfter(autumnFirst) as number;
    expect(autumnNext - autumnFirst).toBeGreaterThan(23 * 3_600_000);
  });

  it('accepts slots a minute apart or more, whatever the day fields say', () => {
    for (const cron of ['* * * * *', '0 * * * * *', '0 9 * * 1', '0 0,1 0 * * *', '59 23 * * *', '0 0 0 1 1 *']) {
      expect(messageOf(() => CronSchedule.parse({ cron, timezone: 'Europe/Paris' }))).toBe('no error');
    }
  });

  it('reads a stored schedule without the creation checks, so a run never fails on them', () => {
    expect(CronSchedule.of({ cron: '0,30 0 0 * * *', timezone: 'UTC' }).nextAfter(at('2026-01-01T00:00:10Z'))).toBe(
      at('2026-01-01T00:00:30Z'),
    );
    expect(messageOf(() => CronSchedule.of({ cron: '0 9 * * 1', timezone: 'Mars/Phobos' }))).toMatch(/IANA/);
  });

  it('accepts a seconds field', () => {
    expect(CronSchedule.parse({ cron: '15 30 9 * * *', timezone: 'UTC' }).nextAfter(at('2026-01-01T00:00:00Z'))).toBe(
      at('2026-01-01T09:30:15Z'),
    );
  });

  it.each([
    [
      { cron: '61 * * * *', timezone: 'UTC' },
      /bad_request: schedule.cron: "61 \* \* \* \*" is not a valid cron expression/,
    ],
    [{ cron: '* * *', timezone: 'UTC' }, /must have 5 fields/],
    [{ cron: '0 9 * * 1', timezone: 'Mars/Phobos' }, /schedule.timezone: "Mars\/Phobos" is not an IANA time zone/],
    [{ cron: '0 0 31 2 *', timezone: 'UTC' }, /never fires/],
    [{ cron: '* * * * * *', timezone: 'UTC' }, /more often than once a minute/],
    [{ cron: '*/30 * * * * *', timezone: 'UTC' }, /more often than once a minute/],
    // Twice a day 30 s apart, at midnight only: the next two slots of most moments are a day apart.
    [{ cron: '0,30 0 0 * * *', timezone: 'UTC' }, /more often than once a minute \(two slots 30 s apart\)/],
    [{ cron: '0,30 0 0 * * *', timezone: 'Europe/Paris' }, /more often than once a minute/],
    [{ cron: '0,59 0 12 1 * *', timezone: 'UTC' }, /two slots 59 s apart/],
  ])('refuses %j with a clear 400', (schedule, message) => {
    expect(messageOf(() => CronSchedule.parse(schedule))).toMatch(message);
  });
});
