import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';
import { MENTION_MAX_CHARS } from '../chat-input';
import { NODE_KEY_PATTERN } from './chat-request.dto';

/** Most node keys, and most node types, one graph's always-sent list may name (its token share bounds it further). */
export const ALWAYS_SEND_KEYS_MAX = 100;

/** Body of PUT /api/ai/graphs/:graphKey/always-send (PROTOCOL §9.6): the whole list, replaced. */
export class AlwaysSendDto {
  @ApiProperty({
    description: `Node keys of the graph whose whole configuration is in every prompt of the graph (at most ${ALWAYS_SEND_KEYS_MAX}).`,
    example: ['fetch-api'],
    type: [String],
  })
  @IsArray()
  @ArrayMaxSize(ALWAYS_SEND_KEYS_MAX)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(MENTION_MAX_CHARS, { each: true })
  @Matches(NODE_KEY_PATTERN, { each: true, message: 'each value in nodeKeys must be a node key' })
  nodeKeys: string[];

  @ApiProperty({
    description: `Node types whose configuration and the data of each of the graph's nodes of that type are in every prompt of the graph (at most ${ALWAYS_SEND_KEYS_MAX}).`,
    example: ['filter'],
    type: [String],
  })
  @IsArray()
  @ArrayMaxSize(ALWAYS_SEND_KEYS_MAX)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(MENTION_MAX_CHARS, { each: true })
  @Matches(NODE_KEY_PATTERN, { each: true, message: 'each value in nodeTypes must be a node type key' })
  nodeTypes: string[];
}
