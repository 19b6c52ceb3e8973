import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsObject, IsOptional, ValidateNested } from 'class-validator';
import { GraphEdgeDto } from './graph-edge.dto';
import { GraphNodeDto } from './graph-node.dto';
import { GraphDto } from './graph.dto';
import { NodeTypeConfigDto } from './node-type-config.dto';

/** Body of PUT /api/graphs/:graphKey (and shape of the GET export): docs/protocol.md §2. */
export class GraphDocumentDto {
  @ApiProperty({ type: GraphDto })
  @IsObject()
  @ValidateNested()
  @Type(() => GraphDto)
  graph: GraphDto;

  @ApiProperty({ type: [GraphNodeDto] })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => GraphNodeDto)
  nodes: GraphNodeDto[];

  @ApiProperty({ type: [GraphEdgeDto] })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => GraphEdgeDto)
  edges: GraphEdgeDto[];

  @ApiPropertyOptional({ type: [NodeTypeConfigDto], description: "Upserted into the caller's workspace" })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => NodeTypeConfigDto)
  nodeConfigs?: NodeTypeConfigDto[];
}
