import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString } from 'class-validator';

export class GraphEdgeDto {
  @ApiProperty({ example: 'fetch-api-to-filter-active' })
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

  @ApiProperty({ example: '0' })
  @IsString()
  @IsNotEmpty()
  sheet: string;

  @ApiProperty({ description: 'Source node key', example: 'fetch-api' })
  @IsString()
  @IsNotEmpty()
  source: string;

  @ApiProperty({ description: "An 'out' handle of the source node", example: 'R-0' })
  @IsString()
  sourceHandle: string;

  @ApiProperty({ description: 'Target node key', example: 'filter-active' })
  @IsString()
  @IsNotEmpty()
  target: string;

  @ApiProperty({ description: "An 'in' handle of the target node", example: 'L-0' })
  @IsString()
  targetHandle: string;

  @ApiPropertyOptional({ example: 'success' })
  @IsOptional()
  @IsString()
  label?: string;
}
