import { ApiProperty } from '@nestjs/swagger';
import { GraphChangeCountsDto } from './graph-change-counts.dto';

/** Answer (202) of POST /api/graphs/:graphKey/changes. */
export class GraphChangesAcceptedDto {
  @ApiProperty({ example: true })
  accepted: true;

  @ApiProperty({ description: 'Echo of the request: saved changes or live state', example: false })
  saved: boolean;

  @ApiProperty({ type: GraphChangeCountsDto, description: 'What the change carried (duplicate keys counted once)' })
  changes: GraphChangeCountsDto;

  @ApiProperty({
    description: "Entries (upserts + deletions) left in the graph's live overlay on this instance",
    example: 1,
  })
  overlayEntries: number;

  @ApiProperty({
    description:
      'Saved nodes handed to the background embedding write path (created, or whose content changed); 0 for live state',
    example: 0,
  })
  embeddingCandidates: number;
}
