import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { RUNS_LISTED_MAX } from '../automation.service';

/** Query of GET /api/ai/automations/:automationId/runs. */
export class RunsQueryDto {
  @ApiPropertyOptional({
    description: `Newest runs answered (default 50, at most ${RUNS_LISTED_MAX}).`,
    example: 20,
    minimum: 1,
    maximum: RUNS_LISTED_MAX,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(RUNS_LISTED_MAX)
  limit?: number;
}
