import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { GraphRAGContext } from '../conversation/graph-rag-context';
import { AppError } from '../errors/app-error';
import { GraphDataSourceFactory } from '../graph/graph-data-source.factory';
import { GraphRagRetriever } from './graph-rag.retriever';
import { TokenCountWorker } from './token-count.worker';
import { contextMessageOf } from './toon-context.encoder';

/** Token counts kept for the context messages last counted: as many as the retrieval cache keeps contexts. */
const COUNTS_KEPT = 500;

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
  /** Token count by context message: a question asked again (a cache hit, the same message) is not counted again. */
  private readonly counts = new Map<string, number>();

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
    const locale = this.config.locale;
    const { context, message } = await this.retriever.retrieveWithMessage(
      this.dataSources.forWorkspace(workspace),
      graphKey,
      query,
      { maxNodes: options.maxNodes, maxDepth: options.maxDepth, locale },
    );
    // The context message is the prefix line and the summary, encoded once per cached retrieval.
    const toon = message.slice(contextMessageOf('', locale).length);
    return { context, toon, tokenEstimate: await this.tokensOf(message) };
  }

  private async tokensOf(message: string): Promise<number> {
    const known = this.counts.get(message);
    if (known !== undefined) return known;
    const counted = await this.tokenCount.count(message);
    // The oldest count goes first: a message asked again soon is what this is for.
    if (this.counts.size >= COUNTS_KEPT) this.counts.delete(this.counts.keys().next().value as string);
    this.counts.set(message, counted);
    return counted;
  }
}
