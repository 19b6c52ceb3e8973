import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsNotEmpty, IsNumber, IsOptional, IsString, ValidateNested } from 'class-validator';
import { IsNumberOrString } from './is-number-or-string.validator';
import { NodeHandlesDto } from './node-handles.dto';
import { NodeSizeDto } from './node-size.dto';

export class GraphNodeDto {
  @ApiProperty({ description: 'Local key, unique within the graph', example: 'fetch-api' })
  @IsString()
  @IsNotEmpty()
  _key: string;

  @ApiPropertyOptional({
    description: 'Must equal the graph key of the path; filled when absent',
    example: 'nba-workflow',
  })
  @IsOptional()
  @IsString()
  graphKey?: string;

  @ApiProperty({ description: 'Built-in (starter, return, html, entryType) or a node config key', example: 'api-call' })
  @IsString()
  @IsNotEmpty()
  type: string;

  @ApiPropertyOptional({ example: 1 })
  @IsOptional()
  @IsNumberOrString()
  typeVersion?: number | string;

  @ApiProperty({ description: 'A key of graph.sheetsList', example: '0' })
  @IsString()
  @IsNotEmpty()
  sheet: string;

  @ApiProperty({ example: 520 })
  @IsNumber()
  posX: number;

  @ApiProperty({ example: 100 })
  @IsNumber()
  posY: number;

  @ApiPropertyOptional({ type: NodeSizeDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => NodeSizeDto)
  size?: NodeSizeDto;

  @ApiPropertyOptional({ description: 'JavaScript run by the node', example: 'next(0, incoming[0].data);' })
  @IsOptional()
  @IsString()
  process?: string;

  @ApiPropertyOptional({
    description: 'Free-form node data (any JSON)',
    example: { url: 'https://api.example.com', method: 'GET' },
  })
  @IsOptional()
  data?: unknown;

  @ApiPropertyOptional({ type: NodeHandlesDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => NodeHandlesDto)
  handles?: NodeHandlesDto;

  @ApiPropertyOptional({ description: 'A vector computed elsewhere; stored only with embeddingModel', type: [Number] })
  @IsOptional()
  @IsArray()
  @IsNumber({}, { each: true })
  embedding?: number[];

  @ApiPropertyOptional({ example: 'text-embedding-3-small' })
  @IsOptional()
  @IsString()
  embeddingModel?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  embeddingHash?: string;
}
