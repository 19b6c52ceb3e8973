import {
  formatLocalDate,
  formatZonedDateTime,
  isKnownTimeZone,
  offsetMinutes,
  startOfLocalDate,
  zonedPeriod,
} from './zoned-calendar';

const at = (iso: string) => Date.parse(iso);

describe('zoned calendar', () => {
  it('knows IANA zones and refuses others', () => {
    expect(isKnownTimeZone('Europe/Paris')).toBe(true);
    expect(isKnownTimeZone('UTC')).toBe(true);
    expect(isKnownTimeZone('Mars/Phobos')).toBe(false);
    expect(isKnownTimeZone('')).toBe(false);
  });

  it("formats an instant with the zone's offset of that day (daylight-saving time included)", () => {
    expect(formatZonedDateTime(at('2026-03-30T07:00:00Z'), 'Europe/Paris')).toBe('2026-03-30T09:00:00+02:00');
    expect(formatZonedDateTime(at('2026-01-15T07:00:00Z'), 'Europe/Paris')).toBe('2026-01-15T08:00:00+01:00');
    expect(formatZonedDateTime(at('2026-01-15T07:00:00Z'), 'America/New_York')).toBe('2026-01-15T02:00:00-05:00');
    expect(formatZonedDateTime(at('2026-01-15T07:00:00Z'), 'Asia/Kolkata')).toBe('2026-01-15T12:30:00+05:30');
    expect(offsetMinutes(at('2026-07-01T00:00:00Z'), 'UTC')).toBe(0);
  });

  it('finds a local midnight, also on the days the clocks change', () => {
    expect(startOfLocalDate({ year: 2026, month: 3, day: 29 }, 'Europe/Paris')).toBe(at('2026-03-28T23:00:00Z'));
    expect(startOfLocalDate({ year: 2026, month: 3, day: 30 }, 'Europe/Paris')).toBe(at('2026-03-29T22:00:00Z'));
    expect(startOfLocalDate({ year: 2026, month: 10, day: 26 }, 'Europe/Paris')).toBe(at('2026-10-25T23:00:00Z'));
    // Santiago skips 00:00 when summer time starts (2026-09-06): the day starts at 01:00.
    expect(
      formatZonedDateTime(startOfLocalDate({ year: 2026, month: 9, day: 6 }, 'America/Santiago'), 'America/Santiago'),
    ).toBe('2026-09-06T01:00:00-03:00');
  });

  it('gives the previous, current and next day, ISO week and month in the zone', () => {
    // Monday 2026-03-30 00:30 in Paris is still Sunday 29 in UTC.
    const monday = at('2026-03-29T22:30:00Z');
    const dates = (unit: 'DAY' | 'WEEK' | 'MONTH', offset: number) => {
      const period = zonedPeriod(monday, 'Europe/Paris', unit, offset);
      return [formatLocalDate(period.first), formatLocalDate(period.last)];
    };
    expect(dates('DAY', 0)).toEqual(['2026-03-30', '2026-03-30']);
    expect(dates('DAY', -1)).toEqual(['2026-03-29', '2026-03-29']);
    expect(dates('WEEK', 0)).toEqual(['2026-03-30', '2026-04-05']);
    expect(dates('WEEK', -1)).toEqual(['2026-03-23', '2026-03-29']);
    expect(dates('MONTH', -1)).toEqual(['2026-02-01', '2026-02-28']);
    expect(dates('MONTH', 0)).toEqual(['2026-03-01', '2026-03-31']);
    expect(dates('MONTH', 10)).toEqual(['2027-01-01', '2027-01-31']);
    expect(dates('MONTH', -3)).toEqual(['2025-12-01', '2025-12-31']);
    // The week holding the spring change is 167 hours long.
    const week = zonedPeriod(monday, 'Europe/Paris', 'WEEK', -1);
    expect(week.endTime - week.startTime).toBe(167 * 3_600_000);
    expect(week.endTime).toBe(at('2026-03-29T22:00:00Z'));
  });
});
