import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsIn, ValidateNested } from 'class-validator';
import { HandlePointDto } from './handle-point.dto';

export class HandleGroupDto {
  @ApiProperty({ enum: ['separate', 'fix'], example: 'fix' })
  @IsIn(['separate', 'fix'])
  position: 'separate' | 'fix';

  @ApiProperty({ type: [HandlePointDto] })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => HandlePointDto)
  point: HandlePointDto[];
}
