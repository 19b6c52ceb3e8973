import { IsInt, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { RestoreRequestDto, UndoRequestDto } from '../../dto/revert-request.dto';
import type { AiRestoreMessage, AiUndoMessage } from '../ai-socket.events';

/** `ai:undo` (docs/protocol.md §9.4): the body of POST /api/ai/thread/:threadId/undo plus the thread, `_id` and a token. */
export class SocketUndoDto extends UndoRequestDto implements AiUndoMessage {
  @IsInt()
  _id: number;

  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  threadId: string;

  @IsOptional()
  @IsString()
  token?: string;
}

/** `ai:restore` (docs/protocol.md §9.4): the body of POST /api/ai/thread/:threadId/restore plus the thread, `_id` and a token. */
export class SocketRestoreDto extends RestoreRequestDto implements AiRestoreMessage {
  @IsInt()
  _id: number;

  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  threadId: string;

  @IsOptional()
  @IsString()
  token?: string;
}
