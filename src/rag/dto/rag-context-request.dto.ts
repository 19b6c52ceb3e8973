import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { RagContextOptionsDto } from './rag-context-options.dto';

/** Body of POST /api/rag/context (docs/protocol.md §3). */
export class RagContextRequestDto {
  @ApiProperty({ description: 'Local key of a graph of your workspace.', example: 'nba-workflow' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
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
