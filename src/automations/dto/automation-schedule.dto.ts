import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** `schedule` of an automation: checked further by CronSchedule (a bad expression or zone is a 400 that says why). */
export class AutomationScheduleDto {
  @ApiProperty({
    description:
      'Cron expression: 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first); at most one run a minute.',
    example: '0 9 * * 1',
    maxLength: 120,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  cron: string;

  @ApiProperty({
    description: "IANA time zone the expression (and the prompt's placeholders) are read in.",
    example: 'Europe/Paris',
    maxLength: 64,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  timezone: string;
}
