import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsNotEmpty, IsOptional, IsString, ValidateNested } from 'class-validator';
import { NodeTypeTemplateDto } from './node-type-template.dto';

export class NodeTypeConfigDto {
  @ApiProperty({ description: 'The node type this config describes', example: 'api-call' })
  @IsString()
  @IsNotEmpty()
  _key: string;

  @ApiPropertyOptional({ description: "Ignored: configs go to the caller's workspace", example: 'default' })
  @IsOptional()
  @IsString()
  workspace?: string;

  @ApiProperty({ example: 'API Call' })
  @IsString()
  @IsNotEmpty()
  displayName: string;

  @ApiPropertyOptional({ example: 'Calls an HTTP API and outputs the JSON response.' })
  @IsOptional()
  @IsString()
  description?: string;

  @ApiPropertyOptional({ example: 'network' })
  @IsOptional()
  @IsString()
  category?: string;

  @ApiPropertyOptional({ example: 'globe' })
  @IsOptional()
  @IsString()
  icon?: string;

  @ApiPropertyOptional({ type: NodeTypeTemplateDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => NodeTypeTemplateDto)
  node?: NodeTypeTemplateDto;
}
