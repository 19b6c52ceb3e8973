import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsObject, Min, ValidateIf, ValidateNested } from 'class-validator';
import { PolicyLevelsDto } from './policy-levels.dto';

const presentOnly = ValidateIf((_object, value) => value !== undefined);

/** Levels that replace the workspace default for one role; an unknown role is refused (400). */
export class PolicyRolesDto {
  @ApiPropertyOptional({ type: PolicyLevelsDto, description: 'Levels for editors, over the workspace default.' })
  @presentOnly
  @IsObject()
  @ValidateNested()
  @Type(() => PolicyLevelsDto)
  editor?: PolicyLevelsDto;

  @ApiPropertyOptional({ type: PolicyLevelsDto, description: 'Levels for admins, over the workspace default.' })
  @presentOnly
  @IsObject()
  @ValidateNested()
  @Type(() => PolicyLevelsDto)
  admin?: PolicyLevelsDto;
}

/** Body of PUT /api/ai/policy, and the shape GET answers (docs/protocol.md §8.1). */
export class ActionPolicyDto {
  @ApiPropertyOptional({ type: PolicyLevelsDto, description: "The workspace's levels, for every role that can propose. Absent: none." })
  @presentOnly
  @IsObject()
  @ValidateNested()
  @Type(() => PolicyLevelsDto)
  default?: PolicyLevelsDto;

  @ApiPropertyOptional({ type: PolicyRolesDto, description: 'Overrides for editors and admins. Absent: none.' })
  @presentOnly
  @IsObject()
  @ValidateNested()
  @Type(() => PolicyRolesDto)
  roles?: PolicyRolesDto;

  @ApiPropertyOptional({
    description: 'When the policy was stored (answers only). Accepted and ignored in a PUT, so a GET answer can be sent back as it is.',
    example: 1764086400000,
  })
  @presentOnly
  @IsInt()
  @Min(0)
  updatedTime?: number;
}
