/**
 * Calendar arithmetic in an IANA time zone with Node's Intl only: the wall-clock time of an
 * instant, the instant of a local midnight (daylight-saving changes included), and the days, ISO
 * weeks (Monday first) and months relative to an instant.
 */

export type PeriodUnit = 'DAY' | 'WEEK' | 'MONTH';

/** A local calendar date. */
export interface LocalDate {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
}

/** A period of whole local days: its first and last day, and the instants it spans [start, end). */
export interface ZonedPeriod {
  first: LocalDate;
  last: LocalDate;
  startTime: number;
  endTime: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** True for a time zone Intl knows (IANA names such as Europe/Paris, and UTC). */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    formatterOf(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock fields of `time` in the zone. */
export function wallClock(
  time: number,
  timeZone: string,
): LocalDate & { hour: number; minute: number; second: number } {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(new Date(time))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year,
    month: parts.month,
    day: parts.day,
    hour: parts.hour,
    minute: parts.minute,
    second: parts.second,
  };
}

/** The zone's offset from UTC at `time`, in minutes (Europe/Paris in summer: 120). */
export function offsetMinutes(time: number, timeZone: string): number {
  const wall = wallClock(time, timeZone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return Math.round((asUtc - Math.floor(time / 1000) * 1000) / 60_000);
}

/** The first instant of a local date (its midnight, or the first time that exists when a DST change skips it). */
export function startOfLocalDate(date: LocalDate, timeZone: string): number {
  const midnightAsUtc = Date.UTC(date.year, date.month - 1, date.day);
  let guess = midnightAsUtc - offsetMinutes(midnightAsUtc, timeZone) * 60_000;
  // Twice: the offset at the guess may differ from the offset at the first estimate around a DST change.
  for (let pass = 0; pass < 2; pass += 1) guess = midnightAsUtc - offsetMinutes(guess, timeZone) * 60_000;
  const wall = wallClock(guess, timeZone);
  // A midnight that does not exist (a DST change at 00:00) lands on the previous day: take the next hour.
  return wall.day === date.day ? guess : guess + 3_600_000;
}

/** `date` moved by whole days (calendar arithmetic, no zone involved). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const moved = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
}

/**
 * The period `offset` units from the one holding `time` (0: the current day, week or month; -1: the
 * previous one), in the zone. Weeks run Monday to Sunday (ISO 8601).
 */
export function zonedPeriod(time: number, timeZone: string, unit: PeriodUnit, offset: number): ZonedPeriod {
  const today = wallClock(time, timeZone);
  let first: LocalDate;
  let next: LocalDate;
  if (unit === 'DAY') {
    first = addDays(today, offset);
    next = addDays(first, 1);
  } else if (unit === 'WEEK') {
    const weekday = (new Date(Date.UTC(today.year, today.month - 1, today.day)).getUTCDay() + 6) % 7; // Monday 0
    first = addDays(today, -weekday + 7 * offset);
    next = addDays(first, 7);
  } else {
    const months = today.year * 12 + (today.month - 1) + offset;
    first = { year: Math.floor(months / 12), month: (months % 12) + 1, day: 1 };
    next = { year: Math.floor((months + 1) / 12), month: ((months + 1) % 12) + 1, day: 1 };
  }
  return {
    first,
    last: addDays(next, -1),
    startTime: startOfLocalDate(first, timeZone),
    endTime: startOfLocalDate(next, timeZone),
  };
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** `2026-03-30` */
export function formatLocalDate(date: LocalDate): string {
  return `${pad(date.year, 4)}-${pad(date.month)}-${pad(date.day)}`;
}

/** `2026-03-30T09:00:00+02:00`: ISO 8601 with the zone's offset at that instant. */
export function formatZonedDateTime(time: number, timeZone: string): string {
  const wall = wallClock(time, timeZone);
  const offset = offsetMinutes(time, timeZone);
  const sign = offset < 0 ? '-' : '+';
  const absolute = Math.abs(offset);
  return `${formatLocalDate(wall)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
}

/** `YYYY-MM`: the calendar month of `time` in `timeZone` (the month an automation's spend counts in). */
export function zonedMonth(time: number, timeZone: string): string {
  return formatZonedDateTime(time, timeZone).slice(0, 7);
}
