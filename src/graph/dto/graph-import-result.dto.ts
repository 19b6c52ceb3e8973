import { ApiProperty } from '@nestjs/swagger';

export class GraphImportResultDto {
  @ApiProperty({ description: 'Nodes stored', example: 9 })
  nodes: number;

  @ApiProperty({ description: 'Edges stored', example: 6 })
  edges: number;
}
