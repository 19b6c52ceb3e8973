import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsNumber, IsOptional, IsString } from 'class-validator';

export class HandlePointDto {
  @ApiProperty({ example: 'R-0' })
  @IsString()
  @IsNotEmpty()
  id: string;

  @ApiProperty({ enum: ['in', 'out'], example: 'out' })
  @IsIn(['in', 'out'])
  type: 'in' | 'out';

  @ApiProperty({ description: 'What the handle accepts', example: 'any' })
  @IsString()
  accept: string;

  @ApiPropertyOptional({ example: 50 })
  @IsOptional()
  @IsNumber()
  offset?: number;

  @ApiPropertyOptional({ example: 'success' })
  @IsOptional()
  @IsString()
  display?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  linkedHtmlId?: string;
}
