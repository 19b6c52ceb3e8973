import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, ValidateIf } from 'class-validator';
import { ActionKind, POLICY_LEVELS, PolicyLevel } from '../action-policy';

const KIND_DESCRIPTIONS: Record<ActionKind, string> = {
  create_node: 'propose_create_node, and create_node inside a batch',
  update_node: 'propose_update_node, and update_node inside a batch',
  move_node: 'propose_move_node, and move_node inside a batch',
  delete_node: 'propose_delete_node, and delete_node inside a batch',
  create_edge: 'propose_create_edge, and create_edge inside a batch',
  delete_edge: 'propose_delete_edge, and delete_edge inside a batch',
  batch: 'propose_batch itself: a batch takes the strictest level of this and of its parts',
};

/** One kind's level: optional, but when present one of the four levels (null refused too). */
function LevelOf(kind: ActionKind) {
  return applyDecorators(
    ApiPropertyOptional({
      enum: POLICY_LEVELS,
      description: `Level of ${KIND_DESCRIPTIONS[kind]}. Absent: validation_required.`,
    }),
    ValidateIf((_object, value) => value !== undefined),
    IsIn(POLICY_LEVELS),
  );
}

/** Levels per action kind (docs/protocol.md §8.1); an unknown kind is refused (400). */
export class PolicyLevelsDto {
  @LevelOf('create_node') create_node?: PolicyLevel;
  @LevelOf('update_node') update_node?: PolicyLevel;
  @LevelOf('move_node') move_node?: PolicyLevel;
  @LevelOf('delete_node') delete_node?: PolicyLevel;
  @LevelOf('create_edge') create_edge?: PolicyLevel;
  @LevelOf('delete_edge') delete_edge?: PolicyLevel;
  @LevelOf('batch') batch?: PolicyLevel;
}
