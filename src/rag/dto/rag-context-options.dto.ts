import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Optional overrides of the retrieval defaults (RAG_MAX_NODES, RAG_MAX_DEPTH). */
export class RagContextOptionsDto {
  @ApiPropertyOptional({ description: 'Most nodes in the context (1-100).', minimum: 1, maximum: 100, example: 20 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  maxNodes?: number;

  @ApiPropertyOptional({
    description: 'Hops of the neighbourhood expansion (1-3).',
    minimum: 1,
    maximum: 3,
    example: 2,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3)
  maxDepth?: number;
}
