import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

/** Body of POST /api/ai/thread/:threadId/undo (docs/protocol.md §9.4). */
export class UndoRequestDto {
  @ApiPropertyOptional({
    description:
      'The message whose changes are reverted (`messages[].id` of GET /api/ai/thread/:threadId): an assistant message, or ' +
      'the ACTIONS_REVERTED event of an earlier undo (undoing it puts the changes back). Absent: the latest assistant ' +
      'message that applied anything.',
    example: 'msg_mhx2k3l0a9f3c1e2b4d5f6a7',
    maxLength: 100,
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  messageId?: string;
}

/** Body of POST /api/ai/thread/:threadId/restore (docs/protocol.md §9.4). */
export class RestoreRequestDto {
  @ApiProperty({
    description: 'Everything the assistant applied after this message is reverted, newest first.',
    example: 'msg_mhx2k3l0a9f3c1e2b4d5f6a7',
    maxLength: 100,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  messageId: string;
}
