import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
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
}
