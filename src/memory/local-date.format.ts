/**
 * An instant as ISO 8601 with the process's UTC offset instead of `Z` (formatLocalDate):
 * `2025-12-09T14:30:00.123+01:00`. Memory records carry it beside their epoch time so a reader sees
 * the service's local time and can still compare instants. The offset is the one in force at that
 * instant (daylight saving time included), from the process's time zone (`TZ`).
 */
export function formatLocalDate(date: Date): string {
  const offsetMinutes = -date.getTimezoneOffset();
  const local = new Date(date.getTime() + offsetMinutes * 60_000);
  const sign = offsetMinutes >= 0 ? '+' : '-';
  const absolute = Math.abs(offsetMinutes);
  const offset = `${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
  // toISOString() of the shifted instant prints the local wall-clock time; its `Z` is replaced by the offset.
  return `${local.toISOString().slice(0, -1)}${offset}`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
