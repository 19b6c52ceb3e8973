import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import type { MessageSegment } from '../../conversation/rich-message';
import { IsGraphKey } from '../../graph/dto/is-graph-key.validator';
import { GRAPH_KEY_MAX_LENGTH } from '../../graph/graph-key.rule';
import {
  BLOCKS_MAX,
  MENTION_MAX_CHARS,
  MENTIONS_MAX,
  POINTER_KEYS_MAX,
  PREVIEW_MAX_CHARS,
  SEGMENTS_MAX,
} from '../chat-input';
import { MULTITASK_STRATEGIES, MultitaskStrategy } from '../multitask-strategy';
import { IsMessageSegments } from './is-message-segments.validator';

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

  @ApiPropertyOptional({
    description:
      'The question or instruction. At most MESSAGE_MAX_CHARS characters (default 16,000; longer: 413). Required unless `segments` is given; with both, it is the first text segment.',
    example: 'What does fetch-api do, and can you add a node that logs its errors?',
  })
  @ValidateIf((body: ChatRequestDto) => body.segments === undefined || body.message !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(TEXT_MAX_CHARS)
  message?: string;

  @ApiPropertyOptional({
    description: `A rich message (PROTOCOL §9.6): text segments \`{ type: "text", text }\` and blocks \`{ type: "block", block, config, preview }\` with \`block\` one of pointer (config \`{ nodeKeys?, edgeKeys?, sheet? }\`, at most ${POINTER_KEYS_MAX} keys each), use and create (\`{ nodeType }\`), modify_config (\`{ nodeKey }\`); \`preview\` is the chip's readable text (at most ${PREVIEW_MAX_CHARS} characters). At most ${SEGMENTS_MAX} segments and ${BLOCKS_MAX} blocks. The model reads the linear text (each block as a \`[block N kind: preview]\` marker, bounded by MESSAGE_MAX_CHARS) and, in its context, each block's data; each block's result is in the message's DATA_ADDED event.`,
    example: [
      { type: 'text', text: 'Why does' },
      { type: 'block', block: 'pointer', config: { nodeKeys: ['fetch-api'] }, preview: 'fetch-api' },
      { type: 'text', text: 'fail, and how would' },
      { type: 'block', block: 'use', config: { nodeType: 'filter' }, preview: 'Filter' },
      { type: 'text', text: 'help?' },
    ],
    type: 'array',
    items: { type: 'object' },
  })
  @IsOptional()
  @IsMessageSegments()
  segments?: MessageSegment[];

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

  @ApiPropertyOptional({
    description:
      'What this message does while a run is active on the thread (docs/protocol.md §9.7): `reject` (default: 409 ' +
      'thread_busy), `enqueue` (runs after the runs before it, in order; at most AI_ENQUEUE_MAX waiting per thread, ' +
      'beyond: 429 rate_limited), `interrupt` (stops the active run, its text so far kept, then runs) or `rollback` ' +
      '(stops the active run and removes its turn from the thread, then runs). With no run active, it runs at once.',
    enum: MULTITASK_STRATEGIES,
    example: 'enqueue',
  })
  @IsOptional()
  @IsIn(MULTITASK_STRATEGIES)
  multitaskStrategy?: MultitaskStrategy;
}
