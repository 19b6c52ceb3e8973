import { ApiProperty } from '@nestjs/swagger';

/** How many entries of each list a change carried (duplicate keys counted once). */
export class GraphChangeCountsDto {
  @ApiProperty({ example: 1 })
  upsertNodes: number;

  @ApiProperty({ example: 0 })
  deleteNodes: number;

  @ApiProperty({ example: 0 })
  upsertEdges: number;

  @ApiProperty({ example: 0 })
  deleteEdges: number;
}
