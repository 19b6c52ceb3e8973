import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsNumber, IsOptional } from 'class-validator';

export class NodeSizeDto {
  @ApiProperty({ example: 240 })
  @IsNumber()
  width: number;

  @ApiProperty({ example: 140 })
  @IsNumber()
  height: number;

  @ApiPropertyOptional({ example: false })
  @IsOptional()
  @IsBoolean()
  dynamic?: boolean;
}
