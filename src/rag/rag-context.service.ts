import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { GraphRAGContext } from '../conversation/graph-rag-context';
import { AppError } from '../errors/app-error';
import { GraphDataSourceFactory } from '../graph/graph-data-source.factory';
import { GraphRagRetriever } from './graph-rag.retriever';
import { TokenCountWorker } from './token-count.worker';
import { buildContextSummary, contextMessageOf } from './toon-context.encoder';

export interface RagContextResponse {
  context: GraphRAGContext;
  /** The nodes and edges as the model sees them (TOON tables). */
  toon: string;
  /** Tokens of the whole context message (prefix + TOON), o200k_base. */
  tokenEstimate: number;
}

export interface RagContextOptions {
  maxNodes?: number;
  maxDepth?: number;
}

/**
 * What the AI would see for a question on a graph of a workspace: the retrieval of POST /api/rag/context, also the
 * MCP server's `search_graph`, so both answer from the same place. The query is limited like a chat message
 * (MESSAGE_MAX_CHARS, 413); a graph absent from the workspace is not_found.
 */
@Injectable()
export class RagContextService {
  constructor(
    private readonly retriever: GraphRagRetriever,
    private readonly tokenCount: TokenCountWorker,
    private readonly dataSources: GraphDataSourceFactory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async contextFor(
    workspace: string,
    graphKey: string,
    query: string,
    options: RagContextOptions = {},
  ): Promise<RagContextResponse> {
    if (query.length > this.config.limits.messageMaxChars) {
      throw new AppError('payload_too_large', `query is longer than ${this.config.limits.messageMaxChars} characters`);
    }
    const context = await this.retriever.retrieve(this.dataSources.forWorkspace(workspace), graphKey, query, {
      maxNodes: options.maxNodes,
      maxDepth: options.maxDepth,
    });
    const locale = this.config.locale;
    // The context message is the prefix line and the summary: the summary is encoded once.
    const toon = buildContextSummary(context, locale);
    return { context, toon, tokenEstimate: await this.tokenCount.count(contextMessageOf(toon, locale)) };
  }
}
