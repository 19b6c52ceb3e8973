import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsObject, Min, ValidateIf, ValidateNested } from 'class-validator';
import { PolicyLevelsDto } from './policy-levels.dto';

/** Optional, but validated when present: `null` is refused like any other wrong value. */
const presentOnly = () => ValidateIf((_object, value) => value !== undefined);

/** An optional object of levels per kind: unknown kinds and levels refused (400). */
function LevelsProperty(description: string) {
  return applyDecorators(
    ApiPropertyOptional({ type: PolicyLevelsDto, description }),
    presentOnly(),
    IsObject(),
    ValidateNested(),
    Type(() => PolicyLevelsDto),
  );
}

/** Levels that replace the workspace default for one role; an unknown role is refused (400). */
export class PolicyRolesDto {
  @LevelsProperty('Levels for editors, over the workspace default.')
  editor?: PolicyLevelsDto;

  @LevelsProperty('Levels for admins, over the workspace default.')
  admin?: PolicyLevelsDto;
}

/** Body of PUT /api/ai/policy, and the shape GET answers (docs/protocol.md §8.1). */
export class ActionPolicyDto {
  @LevelsProperty("The workspace's levels, for every role that can propose. Absent: none.")
  default?: PolicyLevelsDto;

  @ApiPropertyOptional({ type: PolicyRolesDto, description: 'Overrides for editors and admins. Absent: none.' })
  @presentOnly()
  @IsObject()
  @ValidateNested()
  @Type(() => PolicyRolesDto)
  roles?: PolicyRolesDto;

  @ApiPropertyOptional({
    description:
      'When the policy was stored (answers only). Accepted and ignored in a PUT, so a GET answer can be sent back as it is.',
    example: 1764086400000,
  })
  @presentOnly()
  @IsInt()
  @Min(0)
  updatedTime?: number;
}
