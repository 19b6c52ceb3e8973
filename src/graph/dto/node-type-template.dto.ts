import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsOptional, IsString, ValidateNested } from 'class-validator';
import { NodeHandlesDto } from './node-handles.dto';
import { NodeSizeDto } from './node-size.dto';

/** What a node of this type starts with. */
export class NodeTypeTemplateDto {
  @ApiPropertyOptional({ type: NodeHandlesDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => NodeHandlesDto)
  handles?: NodeHandlesDto;

  @ApiPropertyOptional({ example: 'next(0, incoming[0].data);' })
  @IsOptional()
  @IsString()
  process?: string;

  @ApiPropertyOptional({ type: NodeSizeDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => NodeSizeDto)
  size?: NodeSizeDto;
}
