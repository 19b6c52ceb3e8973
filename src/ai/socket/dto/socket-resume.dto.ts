import { IsOptional, IsString } from 'class-validator';
import { IsMessageId } from './message-id.rule';
import { ResumeRequestDto } from '../../dto/resume-request.dto';
import type { AiResumeMessage } from '../ai-socket.events';

/** `ai:resume` (docs/protocol.md §4): the fields of POST /api/ai/resume plus `_id` and an optional per-message token. */
export class SocketResumeDto extends ResumeRequestDto implements AiResumeMessage {
  @IsMessageId()
  _id: number;

  @IsOptional()
  @IsString()
  token?: string;
}
