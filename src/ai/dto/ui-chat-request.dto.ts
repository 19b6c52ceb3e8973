import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { IsGraphKey } from '../../graph/dto/is-graph-key.validator';
import { GRAPH_KEY_MAX_LENGTH } from '../../graph/graph-key.rule';

/** Most messages a request may carry (the AI SDK sends the whole conversation; the service reads the last ones). */
export const UI_CHAT_MESSAGES_MAX = 500;

/**
 * Body of POST /api/ai/ui-chat: what the AI SDK's `useChat` default transport sends (`id`, `messages`, `trigger`,
 * `messageId`), plus `graphKey` (the transport's `body` option). The messages are read by UiChatTurnReader, which
 * checks the parts it uses.
 */
export class UiChatRequestDto {
  @ApiProperty({
    description: 'The chat id: one of your threads to continue it, or any new id to start a conversation.',
    example: 'ai_mhx2k3l0a9f3c1e2b4d5f6a7',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  id: string;

  @ApiProperty({
    description: "The conversation as useChat holds it (UIMessage[]); the last message is the request's turn.",
    type: [Object],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(UI_CHAT_MESSAGES_MAX)
  @IsObject({ each: true })
  messages: Record<string, unknown>[];

  @ApiProperty({ enum: ['submit-message', 'regenerate-message'], example: 'submit-message' })
  @IsIn(['submit-message', 'regenerate-message'])
  trigger: 'submit-message' | 'regenerate-message';

  @ApiPropertyOptional({ description: 'Sent by useChat when regenerating (not supported: 400).' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  messageId?: string;

  @ApiProperty({
    description: 'Local key of a graph of your workspace.',
    example: 'nba-workflow',
    maxLength: GRAPH_KEY_MAX_LENGTH,
  })
  @IsGraphKey()
  graphKey: string;
}
