import { AppError } from '../../errors/app-error';
import { formatLocalDate, formatZonedDateTime, PeriodUnit, zonedPeriod } from './zoned-calendar';

/** What a run's placeholders are resolved from. */
export interface PlaceholderContext {
  /** The run's start. */
  now: number;
  /** The previous run's start, null for the first run. */
  lastRunTime: number | null;
  timezone: string;
}

/** Written for {{lastRunTime}} before the first run. */
export const NO_PREVIOUS_RUN = 'never (this is the first run)';

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const PERIOD = /^period:([+-]?\d{1,4})_(DAY|WEEK|MONTH)(?:\.(start|end))?$/;

type Placeholder =
  | { kind: 'now' }
  | { kind: 'lastRunTime' }
  | { kind: 'period'; offset: number; unit: PeriodUnit; part: 'start' | 'end' | null };

function parse(name: string): Placeholder | null {
  if (name === 'now') return { kind: 'now' };
  if (name === 'lastRunTime') return { kind: 'lastRunTime' };
  const period = PERIOD.exec(name);
  if (!period) return null;
  return {
    kind: 'period',
    offset: Number(period[1]),
    unit: period[2] as PeriodUnit,
    part: (period[3] as 'start' | 'end' | undefined) ?? null,
  };
}

/**
 * Refuses a prompt with a placeholder the resolver does not know (bad_request naming it), so that a
 * run never fails on one. Known: {{now}}, {{lastRunTime}}, {{period:OFFSET_UNIT}} with UNIT DAY, WEEK
 * or MONTH and an optional `.start` / `.end`.
 */
export function checkPlaceholders(prompt: string): void {
  const unknown = [...prompt.matchAll(PLACEHOLDER)].map((match) => match[1]).filter((name) => parse(name) === null);
  if (unknown.length > 0) {
    throw AppError.badRequest(
      `prompt: unknown placeholder${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `{{${name}}}`).join(', ')} ` +
        '(known: {{now}}, {{lastRunTime}}, {{period:-1_WEEK}} with DAY, WEEK or MONTH, optionally .start or .end)',
    );
  }
}

/**
 * The prompt a run asks (relative periods resolved at execution): in the automation's time zone, {{now}}
 * and {{lastRunTime}} become ISO 8601 times with the zone's offset (2026-03-30T09:00:00+02:00),
 * {{period:-1_WEEK}} last week's first and last dates ("2026-03-23 to 2026-03-29"; a DAY is one date),
 * `.start` / `.end` one of them. Weeks start on Monday.
 */
export function resolvePlaceholders(prompt: string, context: PlaceholderContext): string {
  return prompt.replace(PLACEHOLDER, (whole, name: string) => {
    const placeholder = parse(name);
    if (!placeholder) return whole;
    switch (placeholder.kind) {
      case 'now':
        return formatZonedDateTime(context.now, context.timezone);
      case 'lastRunTime':
        return context.lastRunTime === null
          ? NO_PREVIOUS_RUN
          : formatZonedDateTime(context.lastRunTime, context.timezone);
      case 'period': {
        const period = zonedPeriod(context.now, context.timezone, placeholder.unit, placeholder.offset);
        const first = formatLocalDate(period.first);
        const last = formatLocalDate(period.last);
        if (placeholder.part === 'start') return first;
        if (placeholder.part === 'end') return last;
        return placeholder.unit === 'DAY' ? first : `${first} to ${last}`;
      }
    }
  });
}
