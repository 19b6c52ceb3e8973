import { formatLocalDate } from './local-date.format';

describe(formatLocalDate.name, () => {
  const instant = new Date('2025-12-09T13:30:00.123Z');

  afterEach(() => jest.restoreAllMocks());

  it('prints the wall-clock time of the offset and the offset itself, for the same instant', () => {
    jest.spyOn(Date.prototype, 'getTimezoneOffset').mockReturnValue(-60);
    const text = formatLocalDate(instant);
    expect(text).toBe('2025-12-09T14:30:00.123+01:00');
    expect(new Date(text).getTime()).toBe(instant.getTime());
  });

  it('handles offsets west of UTC, half hours and UTC itself', () => {
    jest.spyOn(Date.prototype, 'getTimezoneOffset').mockReturnValue(300);
    expect(formatLocalDate(instant)).toBe('2025-12-09T08:30:00.123-05:00');
    jest.spyOn(Date.prototype, 'getTimezoneOffset').mockReturnValue(-330);
    expect(formatLocalDate(instant)).toBe('2025-12-09T19:00:00.123+05:30');
    jest.spyOn(Date.prototype, 'getTimezoneOffset').mockReturnValue(0);
    expect(formatLocalDate(instant)).toBe('2025-12-09T13:30:00.123+00:00');
  });

  it('crosses a date boundary with the offset', () => {
    jest.spyOn(Date.prototype, 'getTimezoneOffset').mockReturnValue(-600);
    expect(formatLocalDate(new Date('2025-12-31T20:00:00.000Z'))).toBe('2026-01-01T06:00:00.000+10:00');
  });
});
