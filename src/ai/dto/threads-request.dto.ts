import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** Body of POST /api/ai/threads (docs/protocol.md §3). */
export class ThreadsRequestDto {
  @ApiProperty({ description: 'Local key of a graph of your workspace.', example: 'nba-workflow', maxLength: 256 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  graphKey: string;
}
