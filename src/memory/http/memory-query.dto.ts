import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Min } from 'class-validator';
import type { MemoryLevel } from '../memory-record';

const INSTANT_MESSAGE = '$property must be epoch milliseconds or an ISO 8601 date-time';

/** "1700000000000" → 1700000000000; "2025-12-09T14:30:00+01:00" → its epoch ms; anything else is left for validation to refuse. */
function toInstant({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string') return value;
  if (/^\d{1,16}$/.test(value)) return Number(value);
  if (/^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)?)?$/.test(value)) {
    const parsed = Date.parse(value);
    if (!Number.isNaN(parsed)) return parsed;
  }
  return value;
}

function toLevel({ value }: { value: unknown }): unknown {
  return typeof value === 'string' && /^[0-2]$/.test(value) ? Number(value) : value;
}

/** Query of GET /api/ai/thread/:threadId/memory (docs/protocol.md §8.6); unknown parameters are refused. */
export class MemoryQueryDto {
  @ApiPropertyOptional({
    description: '0: turns, 1: short-term summaries, 2: long-term summaries. All levels when absent.',
    enum: [0, 1, 2],
  })
  @IsOptional()
  @Transform(toLevel)
  @IsIn([0, 1, 2], { message: 'level must be 0, 1 or 2' })
  level?: MemoryLevel;

  @ApiPropertyOptional({
    description:
      'Records created at or after this instant: epoch milliseconds, or an ISO 8601 date-time (a date alone is midnight UTC).',
    example: '2025-12-09T00:00:00+01:00',
  })
  @IsOptional()
  @Transform(toInstant)
  @IsInt({ message: INSTANT_MESSAGE })
  @Min(0, { message: INSTANT_MESSAGE })
  since?: number;

  @ApiPropertyOptional({
    description: 'Records created at or before this instant (same forms as since).',
    example: 1765321800000,
  })
  @IsOptional()
  @Transform(toInstant)
  @IsInt({ message: INSTANT_MESSAGE })
  @Min(0, { message: INSTANT_MESSAGE })
  until?: number;
}
