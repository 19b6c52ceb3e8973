import { AppError } from '../../errors/app-error';
import { checkPlaceholders, NO_PREVIOUS_RUN, resolvePlaceholders } from './prompt-placeholders';

const at = (iso: string) => Date.parse(iso);

describe('prompt placeholders', () => {
  // Monday 2026-03-30, 09:00 in Paris (summer time).
  const context = {
    now: at('2026-03-30T07:00:00Z'),
    lastRunTime: at('2026-03-23T08:00:00Z'),
    timezone: 'Europe/Paris',
  };

  it("resolves now, the last run and relative periods in the automation's time zone", () => {
    const prompt =
      'Report at {{now}} on changes since {{lastRunTime}}: last week {{period:-1_WEEK}}, this month {{ period:0_MONTH }}, ' +
      'yesterday {{period:-1_DAY}}, from {{period:-1_MONTH.start}} until {{period:-1_MONTH.end}}, next week starts {{period:+1_WEEK.start}}.';
    expect(resolvePlaceholders(prompt, context)).toBe(
      'Report at 2026-03-30T09:00:00+02:00 on changes since 2026-03-23T09:00:00+01:00: last week 2026-03-23 to 2026-03-29, ' +
        'this month 2026-03-01 to 2026-03-31, yesterday 2026-03-29, from 2026-02-01 until 2026-02-28, next week starts 2026-04-06.',
    );
  });

  it('says so before the first run, and reads the day in the zone, not in UTC', () => {
    expect(resolvePlaceholders('since {{lastRunTime}}', { ...context, lastRunTime: null })).toBe(
      `since ${NO_PREVIOUS_RUN}`,
    );
    // 23:30 UTC on Sunday is already Monday in Tokyo.
    expect(
      resolvePlaceholders('{{period:0_DAY}}', {
        now: at('2026-03-29T23:30:00Z'),
        lastRunTime: null,
        timezone: 'Asia/Tokyo',
      }),
    ).toBe('2026-03-30');
    expect(
      resolvePlaceholders('{{period:0_DAY}}', { now: at('2026-03-29T23:30:00Z'), lastRunTime: null, timezone: 'UTC' }),
    ).toBe('2026-03-29');
  });

  it('leaves text without placeholders alone', () => {
    expect(resolvePlaceholders('Plain {text} and {{ }}', context)).toBe('Plain {text} and {{ }}');
  });

  it('refuses unknown placeholders before anything runs', () => {
    expect(() => checkPlaceholders('ok {{now}} {{period:-2_MONTH.end}}')).not.toThrow();
    expect(() => checkPlaceholders('{{today}} and {{period:-1_YEAR}}')).toThrow(AppError);
    expect(() => checkPlaceholders('{{today}} and {{period:-1_YEAR}}')).toThrow(
      'prompt: unknown placeholders {{today}}, {{period:-1_YEAR}}',
    );
  });
});
