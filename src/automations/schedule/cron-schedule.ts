import { Cron } from 'croner';
import { AppError } from '../../errors/app-error';
import type { AutomationSchedule } from '../automation';
import { isKnownTimeZone } from './zoned-calendar';

/** Schedules firing more often than this are refused: an automation is a report, not a loop. */
export const MIN_INTERVAL_MS = 60_000;

const DAY_MS = 86_400_000;
/** A day of slots at least MIN_INTERVAL_MS apart holds at most this many. */
const SLOTS_PER_DAY_MAX = DAY_MS / MIN_INTERVAL_MS;
/** The time-of-day cycle is looked at from here (a Monday in UTC: no daylight-saving change). */
const CYCLE_START = Date.UTC(2024, 0, 1);

/**
 * An automation's schedule: a cron expression of 5 fields (minute hour day-of-month month
 * day-of-week) or 6 (seconds first), read in an IANA time zone by croner, which follows the zone's
 * daylight-saving changes (a skipped local time fires at the next valid one, a repeated one once).
 * Croner computes times only: no timer of its own runs (the scheduler polls the store).
 */
export class CronSchedule {
  private readonly cron: Cron;

  private constructor(readonly schedule: AutomationSchedule) {
    this.cron = new Cron(schedule.cron, { timezone: schedule.timezone });
  }

  /**
   * A valid schedule for a new or changed automation, or AppError bad_request saying what is wrong:
   * a known zone, 5 or 6 fields, a valid expression that fires, never twice within MIN_INTERVAL_MS.
   */
  static parse(schedule: AutomationSchedule): CronSchedule {
    const parsed = CronSchedule.of(schedule);
    const [first] = parsed.cron.nextRuns(1, new Date());
    if (!first) throw AppError.badRequest(`schedule.cron: "${schedule.cron}" never fires`);
    const gap = minimumGapMs(schedule.cron);
    if (gap < MIN_INTERVAL_MS) {
      throw AppError.badRequest(
        `schedule.cron: "${schedule.cron}" fires more often than once a minute (two slots ${gap / 1000} s apart)`,
      );
    }
    return parsed;
  }

  /** The schedule of a stored automation (checked by parse() when it was stored); AppError bad_request when unusable. */
  static of(schedule: AutomationSchedule): CronSchedule {
    if (!isKnownTimeZone(schedule.timezone)) {
      throw AppError.badRequest(
        `schedule.timezone: "${schedule.timezone}" is not an IANA time zone (e.g. Europe/Paris, UTC)`,
      );
    }
    const fields = schedule.cron.trim().split(/\s+/).length;
    if (fields !== 5 && fields !== 6) {
      throw AppError.badRequest(
        `schedule.cron: "${schedule.cron}" must have 5 fields (minute hour day month weekday) or 6 (seconds first)`,
      );
    }
    try {
      return new CronSchedule(schedule);
    } catch (error) {
      throw AppError.badRequest(
        `schedule.cron: "${schedule.cron}" is not a valid cron expression (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }

  /** The first slot strictly after `time`, or null when the expression never fires again. */
  nextAfter(time: number): number | null {
    return this.cron.nextRun(new Date(time))?.getTime() ?? null;
  }
}

/**
 * The smallest gap between two slots of the expression over its whole cycle, not only its next two
 * slots (`0,30 0 0 * * *` fires twice 30 s apart once a day). The day fields only remove days, so the
 * gaps are those of its time of day on days that all fire: the seconds, minutes and hours fields are
 * read with every day allowed, over two days in UTC (the wrap from one day to the next included).
 * Conservative across daylight-saving changes, where croner merges or shifts a slot, never adds one.
 * Stops as soon as a day holds more slots than MIN_INTERVAL_MS allows.
 */
function minimumGapMs(expression: string): number {
  const fields = expression.trim().split(/\s+/);
  const [second, minute, hour] = fields.length === 6 ? fields : ['0', ...fields];
  const timeOfDay = new Cron(`${second} ${minute} ${hour} * * *`, { timezone: 'UTC' });
  let previous = timeOfDay.nextRun(new Date(CYCLE_START - 1));
  let smallest = Number.POSITIVE_INFINITY;
  for (let count = 0; previous && count <= 2 * SLOTS_PER_DAY_MAX + 1; count += 1) {
    const next = timeOfDay.nextRun(previous);
    if (!next || next.getTime() > CYCLE_START + 2 * DAY_MS) break;
    smallest = Math.min(smallest, next.getTime() - previous.getTime());
    if (smallest < MIN_INTERVAL_MS) return smallest;
    previous = next;
  }
  return smallest;
}
