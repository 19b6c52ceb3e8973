import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsNotEmpty, IsOptional, IsString, ValidateNested } from 'class-validator';
import { GraphEdgeDto } from './graph-edge.dto';
import { GraphNodeDto } from './graph-node.dto';

/** Most keys in one list of one change (the live overlay of a graph holds at most 5,000 entries). */
export const MAX_CHANGES_PER_LIST = 5_000;

/** Body of POST /api/graphs/:graphKey/changes (docs/protocol.md §3): the sync server's change feed. */
export class GraphChangesDto {
  @ApiPropertyOptional({ type: [GraphNodeDto], description: 'Whole node documents, created or replaced' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_CHANGES_PER_LIST)
  @ValidateNested({ each: true })
  @Type(() => GraphNodeDto)
  upsertNodes?: GraphNodeDto[];

  @ApiPropertyOptional({
    type: [String],
    description: 'Keys of deleted nodes (their edges go with them)',
    example: ['disconnected-note'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_CHANGES_PER_LIST)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  deleteNodes?: string[];

  @ApiPropertyOptional({ type: [GraphEdgeDto], description: 'Whole edge documents, created or replaced' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_CHANGES_PER_LIST)
  @ValidateNested({ each: true })
  @Type(() => GraphEdgeDto)
  upsertEdges?: GraphEdgeDto[];

  @ApiPropertyOptional({
    type: [String],
    description: 'Keys of deleted edges',
    example: ['fetch-api-to-error-handler'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_CHANGES_PER_LIST)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  deleteEdges?: string[];

  @ApiProperty({
    description:
      'false: unsaved live state, kept in the live overlay the AI reads first. true: these changes were saved; the overlay forgets ' +
      'these keys (and a store this service owns applies them in one transaction).',
    example: false,
  })
  @IsBoolean()
  saved: boolean;
}
