import { ApiPropertyOptional } from '@nestjs/swagger';
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
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { AutomationScheduleDto } from './automation-schedule.dto';
import { BUDGET_MAX_USD, PROMPT_MAX_CHARS } from './create-automation.dto';

const present = (_: unknown, value: unknown) => value !== undefined && value !== null;

/** Body of PATCH /api/ai/automations/:automationId: any subset of the POST fields; null removes a budget or the provider configuration. */
export class UpdateAutomationDto {
  @ApiPropertyOptional({ maxLength: 100 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ maxLength: 256 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  graphKey?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(PROMPT_MAX_CHARS)
  prompt?: string;

  @ApiPropertyOptional({ type: AutomationScheduleDto, description: 'A new schedule starts from now (no catching up).' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => AutomationScheduleDto)
  schedule?: AutomationScheduleDto;

  @ApiPropertyOptional({ description: 'false: no next run; true again: the next slot from now.', example: false })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ nullable: true, minimum: 0 })
  @ValidateIf(present)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(BUDGET_MAX_USD)
  maxCostUsdPerRun?: number | null;

  @ApiPropertyOptional({ nullable: true, minimum: 0 })
  @ValidateIf(present)
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(BUDGET_MAX_USD)
  maxCostUsdPerMonth?: number | null;

  @ApiPropertyOptional({ nullable: true, description: "null: the workspace's active configuration." })
  @ValidateIf(present)
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  providerConfigId?: string | null;
}
