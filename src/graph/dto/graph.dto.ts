import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsObject, IsOptional, IsString } from 'class-validator';
import { GRAPH_KEY_MAX_LENGTH } from '../graph-key.rule';
import { IsGraphKey } from './is-graph-key.validator';
import { IsNumberOrString } from './is-number-or-string.validator';
import { IsStringRecord } from './is-string-record.validator';

export class GraphDto {
  @ApiProperty({
    description: 'Must equal the graph key of the path',
    example: 'nba-workflow',
    maxLength: GRAPH_KEY_MAX_LENGTH,
  })
  @IsGraphKey()
  _key: string;

  @ApiPropertyOptional({ description: "Ignored: the graph goes to the caller's workspace", example: 'default' })
  @IsOptional()
  @IsString()
  workspace?: string;

  @ApiProperty({ example: 'NBA stats workflow' })
  @IsString()
  name: string;

  @ApiPropertyOptional({ example: 'Fetches NBA player stats and displays the active players.' })
  @IsOptional()
  @IsString()
  description?: string;

  @ApiPropertyOptional({ example: 'demo' })
  @IsOptional()
  @IsString()
  category?: string;

  @ApiPropertyOptional({ description: 'A number or a string', example: 1 })
  @IsOptional()
  @IsNumberOrString()
  version?: number | string;

  @ApiProperty({ description: 'sheetId → sheet name', example: { '0': 'main', '1': 'data-processing' } })
  @IsStringRecord()
  sheetsList: Record<string, string>;

  @ApiPropertyOptional({ description: 'Free-form metadata', example: { author: 'demo' } })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ example: 1709123456000 })
  @IsOptional()
  @IsInt()
  createdTime?: number;

  @ApiPropertyOptional({ example: 1709123456000 })
  @IsOptional()
  @IsInt()
  lastUpdatedTime?: number;
}
