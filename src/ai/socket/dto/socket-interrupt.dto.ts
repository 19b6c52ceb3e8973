import { IsOptional, IsString } from 'class-validator';
import { IsMessageId } from './message-id.rule';
import type { AiInterruptMessage } from '../ai-socket.events';

/** `ai:interrupt` (docs/protocol.md §4): stop the running request `_id` of this socket. */
export class SocketInterruptDto implements AiInterruptMessage {
  @IsMessageId()
  _id: number;

  @IsOptional()
  @IsString()
  token?: string;
}
