import type { Locale } from '../../../config/app-config';
import { GraphDataSource } from '../../../graph/graph-data-source';
import { Graph } from '../../../graph/graph.types';
import { toolResultTexts, ToolResultTexts } from '../tool-result.texts';
import { ToolInputError } from './tool-input.error';

export interface ReadToolLimits {
  /** Whole result, in characters of JSON (~4 characters per token). Default 16000. */
  resultMaxChars: number;
  /** `process` kept by read_node_detail / read_node_config. Default 4000. */
  detailProcessChars: number;
  /** `data` JSON kept by read_node_detail. Default 2000. */
  detailDataChars: number;
  /** `process` and `data` previews in lists (search_nodes). Default 200. */
  previewChars: number;
  /** Nodes listed by explore_neighborhood, edges by list_node_edges. Default 60 / 100. */
  maxNeighborhoodNodes: number;
  maxListedEdges: number;
}

export const DEFAULT_READ_TOOL_LIMITS: Readonly<ReadToolLimits> = Object.freeze({
  resultMaxChars: 16_000,
  detailProcessChars: 4_000,
  detailDataChars: 2_000,
  previewChars: 200,
  maxNeighborhoodNodes: 60,
  maxListedEdges: 100,
});

/**
 * What every read tool of a run works on: ONE graph of one workspace, the size limits of its
 * results, and the language (AI_LOCALE) of what they say to the model.
 */
export class ReadToolContext {
  readonly texts: ToolResultTexts;

  constructor(
    readonly dataSource: GraphDataSource,
    readonly graphKey: string,
    readonly limits: Readonly<ReadToolLimits>,
    readonly locale: Locale = 'en',
  ) {
    this.texts = toolResultTexts(locale);
  }

  /** The bound graph; it may have been deleted since the conversation started. */
  async graph(): Promise<Graph> {
    const graph = await this.dataSource.getGraph(this.graphKey);
    if (!graph) throw new ToolInputError(this.texts.graphGone(this.graphKey));
    return graph;
  }
}
