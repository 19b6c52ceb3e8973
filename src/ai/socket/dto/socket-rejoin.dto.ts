import { IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsMessageId } from './message-id.rule';
import type { AiRejoinMessage } from '../ai-socket.events';

/** `ai:rejoin` (docs/protocol.md §8.7): the events of the thread's latest request after `lastSeq`, under `_id`, then live. */
export class SocketRejoinDto implements AiRejoinMessage {
  @IsMessageId()
  _id: number;

  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  threadId: string;

  /** The last `seq` the client received of that request (0: none). */
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  lastSeq: number;

  @IsOptional()
  @IsString()
  token?: string;
}
