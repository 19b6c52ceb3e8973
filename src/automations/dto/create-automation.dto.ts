import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { AutomationScheduleDto } from './automation-schedule.dto';

/** Hard bound; the configured MESSAGE_MAX_CHARS (at most this) is checked by AutomationService (413). */
export const PROMPT_MAX_CHARS = 100_000;
/** A budget above this is a typo, not a budget. */
export const BUDGET_MAX_USD = 1_000_000;

/** Body of POST /api/ai/automations (docs/protocol.md §8.4). */
export class CreateAutomationDto {
  @ApiProperty({ example: 'Weekly error review', maxLength: 100 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name: string;

  @ApiProperty({ description: 'A graph of your workspace.', example: 'nba-workflow', maxLength: 256 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  graphKey: string;

  @ApiProperty({
    description:
      "Asked at each run, with its placeholders resolved in the schedule's time zone: {{now}}, {{lastRunTime}} (start of the previous run that ran), " +
      '{{period:-1_WEEK}} (offset and DAY, WEEK or MONTH; ".start" or ".end" for one date). Unknown placeholders are refused.',
    example: 'List the nodes of {{period:-1_WEEK}} that handle errors, and propose a log node where one is missing.',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(PROMPT_MAX_CHARS)
  prompt: string;

  @ApiProperty({ type: AutomationScheduleDto })
  @IsObject()
  @ValidateNested()
  @Type(() => AutomationScheduleDto)
  schedule: AutomationScheduleDto;

  @ApiPropertyOptional({
    description: 'Default true. A disabled automation has no next run (run-now still works).',
    example: true,
  })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    description: 'Cap of one run, in USD: a run reaching it stops (budget_exceeded). 0: no run may spend anything.',
    example: 0.5,
    minimum: 0,
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(BUDGET_MAX_USD)
  maxCostUsdPerRun?: number;

  @ApiPropertyOptional({
    description:
      "Cap of the runs started this calendar month (schedule's time zone), in USD: once spent, runs are skipped_budget.",
    example: 20,
    minimum: 0,
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(BUDGET_MAX_USD)
  maxCostUsdPerMonth?: number;

  @ApiPropertyOptional({
    description: "A provider configuration of the workspace its runs use; absent: the workspace's active one.",
    example: 'pc_mhx2k3l0a1b2c3d4e5f6a7b8',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  providerConfigId?: string;
}
