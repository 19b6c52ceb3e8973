import { IsOptional, IsString } from 'class-validator';
import { IsMessageId } from './message-id.rule';
import { ChatRequestDto } from '../../dto/chat-request.dto';
import type { AiChatMessage } from '../ai-socket.events';

/** `ai:chat` (docs/protocol.md §4): the fields of POST /api/ai/chat plus `_id` and an optional per-message token. */
export class SocketChatDto extends ChatRequestDto implements AiChatMessage {
  @IsMessageId()
  _id: number;

  @IsOptional()
  @IsString()
  token?: string;
}
