import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsOptional, ValidateNested } from 'class-validator';
import { HandleGroupDto } from './handle-group.dto';

/** Handle groups by side: T(op), D(own), R(ight), L(eft), 0 (centre). */
export class NodeHandlesDto {
  @ApiPropertyOptional({ type: HandleGroupDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => HandleGroupDto)
  T?: HandleGroupDto;

  @ApiPropertyOptional({ type: HandleGroupDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => HandleGroupDto)
  D?: HandleGroupDto;

  @ApiPropertyOptional({
    type: HandleGroupDto,
    example: { position: 'fix', point: [{ id: 'R-0', type: 'out', accept: 'any' }] },
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => HandleGroupDto)
  R?: HandleGroupDto;

  @ApiPropertyOptional({
    type: HandleGroupDto,
    example: { position: 'fix', point: [{ id: 'L-0', type: 'in', accept: 'any' }] },
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => HandleGroupDto)
  L?: HandleGroupDto;

  @ApiPropertyOptional({ type: HandleGroupDto, name: '0' })
  @IsOptional()
  @ValidateNested()
  @Type(() => HandleGroupDto)
  '0'?: HandleGroupDto;
}
