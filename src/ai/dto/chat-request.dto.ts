import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsGraphKey } from '../../graph/dto/is-graph-key.validator';
import { GRAPH_KEY_MAX_LENGTH } from '../../graph/graph-key.rule';
import { MENTION_MAX_CHARS, MENTIONS_MAX } from '../chat-input';

/** Hard bounds; the configured MESSAGE_MAX_CHARS (at most this) is checked by the use cases (413 payload_too_large). */
export const TEXT_MAX_CHARS = 100_000;

/** The characters of a node key (ArangoDB's key characters, which Nodius's keys follow): what a mention may hold. */
export const NODE_KEY_PATTERN = /^[A-Za-z0-9_\-.@()+,=;$!*'%:]+$/;

/** Body of POST /api/ai/chat (docs/protocol.md §3); also the fields of the socket's `ai:chat`. */
export class ChatRequestDto {
  @ApiProperty({
    description: 'Local key of a graph of your workspace.',
    example: 'nba-workflow',
    maxLength: GRAPH_KEY_MAX_LENGTH,
  })
  @IsGraphKey()
  graphKey: string;

  @ApiProperty({
    description: 'The question or instruction. At most MESSAGE_MAX_CHARS characters (default 16,000; longer: 413).',
    example: 'What does fetch-api do, and can you add a node that logs its errors?',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(TEXT_MAX_CHARS)
  message: string;

  @ApiPropertyOptional({
    description:
      'Continue this thread (yours, of the same graph). Absent: a new thread is created, titled from the message.',
    example: 'ai_mhx2k3l0a9f3c1e2b4d5f6a7',
    maxLength: 100,
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  threadId?: string;

  @ApiPropertyOptional({
    description: `Node keys the user pinned (@-mentions): always in the context, ahead of search hits; unknown keys are listed as not found. At most ${MENTIONS_MAX}, each of the characters of a node key (letters, digits and _ - . @ ( ) + , = ; $ ! * ' % :).`,
    example: ['fetch-api'],
    type: [String],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MENTIONS_MAX)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(MENTION_MAX_CHARS, { each: true })
  @Matches(NODE_KEY_PATTERN, { each: true, message: 'each value in mentions must be a node key' })
  mentions?: string[];
}
