import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { IsGraphKey } from '../../graph/dto/is-graph-key.validator';
import { GRAPH_KEY_MAX_LENGTH } from '../../graph/graph-key.rule';
import { RagContextOptionsDto } from './rag-context-options.dto';

/** Body of POST /api/rag/context (docs/protocol.md §3). */
export class RagContextRequestDto {
  @ApiProperty({
    description: 'Local key of a graph of your workspace.',
    example: 'nba-workflow',
    maxLength: GRAPH_KEY_MAX_LENGTH,
  })
  @IsGraphKey()
  graphKey: string;

  @ApiProperty({
    description: 'The question, as a user would ask it. Empty: the context falls back to the first nodes of the graph.',
    example: 'fetch api NBA',
  })
  @IsString()
  @MaxLength(100_000)
  query: string;

  @ApiPropertyOptional({ type: () => RagContextOptionsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RagContextOptionsDto)
  options?: RagContextOptionsDto;
}
