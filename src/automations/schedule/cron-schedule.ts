import { Cron } from 'croner';
import { AppError } from '../../errors/app-error';
import type { AutomationSchedule } from '../automation';
import { isKnownTimeZone } from './zoned-calendar';

/** Schedules firing more often than this are refused: an automation is a report, not a loop. */
export const MIN_INTERVAL_MS = 60_000;

/**
 * An automation's schedule (docs/automations.md): a cron expression of 5 fields (minute hour
 * day-of-month month day-of-week) or 6 (seconds first), read in an IANA time zone by croner, which
 * follows the zone's daylight-saving changes (a skipped local time fires at the next valid one, a
 * repeated one once). Croner computes times only: no timer of its own runs (the scheduler polls the
 * store, docs/automations.md).
 */
export class CronSchedule {
  private readonly cron: Cron;

  private constructor(readonly schedule: AutomationSchedule) {
    this.cron = new Cron(schedule.cron, { timezone: schedule.timezone });
  }

  /** A valid schedule, or AppError bad_request saying what is wrong. */
  static parse(schedule: AutomationSchedule): CronSchedule {
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
    let parsed: CronSchedule;
    try {
      parsed = new CronSchedule(schedule);
    } catch (error) {
      throw AppError.badRequest(
        `schedule.cron: "${schedule.cron}" is not a valid cron expression (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    const [first, second] = parsed.cron.nextRuns(2, new Date());
    if (!first) throw AppError.badRequest(`schedule.cron: "${schedule.cron}" never fires`);
    if (second && second.getTime() - first.getTime() < MIN_INTERVAL_MS) {
      throw AppError.badRequest(`schedule.cron: "${schedule.cron}" fires more often than once a minute`);
    }
    return parsed;
  }

  /** The first slot strictly after `time`, or null when the expression never fires again. */
  nextAfter(time: number): number | null {
    return this.cron.nextRun(new Date(time))?.getTime() ?? null;
  }
}
