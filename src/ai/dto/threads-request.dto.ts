import { ApiProperty } from '@nestjs/swagger';
import { IsGraphKey } from '../../graph/dto/is-graph-key.validator';
import { GRAPH_KEY_MAX_LENGTH } from '../../graph/graph-key.rule';

/** Body of POST /api/ai/threads (docs/protocol.md §3). */
export class ThreadsRequestDto {
  @ApiProperty({
    description: 'Local key of a graph of your workspace.',
    example: 'nba-workflow',
    maxLength: GRAPH_KEY_MAX_LENGTH,
  })
  @IsGraphKey()
  graphKey: string;
}
