import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { MAX_BATCH_ACTIONS } from '../tools/write-tool.definitions';
import { TEXT_MAX_CHARS } from './chat-request.dto';

/** Body of POST /api/ai/resume (docs/protocol.md §3); also the fields of the socket's `ai:resume`. */
export class ResumeRequestDto {
  @ApiProperty({
    description: 'The thread with the pending proposal or question.',
    example: 'ai_mhx2k3l0a9f3c1e2b4d5f6a7',
    maxLength: 100,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  threadId: string;

  @ApiProperty({
    description:
      'A proposal: true applies the change (then the conversation continues), false rejects it. A question: true answers it ' +
      '(a `confirm` question: yes), false declines it (a `confirm` question: no).',
    example: true,
  })
  @IsBoolean()
  approved: boolean;

  @ApiPropertyOptional({
    description: 'Told to the model with the decision (e.g. why it was rejected).',
    example: 'Put it on the data-processing sheet instead.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT_MAX_CHARS)
  feedback?: string;

  @ApiPropertyOptional({
    description:
      'The answer to a `choice` question, exactly one of its options (required then); absent otherwise. Approvals ignore it.',
    example: '2024-25',
  })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT_MAX_CHARS)
  answer?: string;

  @ApiPropertyOptional({
    description:
      'A batch proposal, approved: the ids of the items to apply (`interrupt.preview.items[].itemId`); the others are ' +
      'declined. They must make sense on their own: an item that needs a node another, declined, item creates is a 400 ' +
      'naming it, and the proposal stays pending. Absent: the whole proposal.',
    example: ['i1', 'i3'],
    type: [String],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_BATCH_ACTIONS)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(20, { each: true })
  approvedItems?: string[];
}
