import { IsInt, IsOptional, IsString } from 'class-validator';
import type { AiInterruptMessage } from '../ai-socket.events';

/** `ai:interrupt` (docs/protocol.md §4): stop the running request `_id` of this socket. */
export class SocketInterruptDto implements AiInterruptMessage {
  @IsInt()
  _id: number;

  @IsOptional()
  @IsString()
  token?: string;
}
