import type { AlwaysSendList } from '../../always-send/always-send';
import type { AlwaysSendDocument } from '../../always-send/always-send.repository';
import type { AlwaysSendService } from '../../always-send/always-send.service';
import type { Principal } from '../../auth/principal';
import type { AppConfig } from '../../config/app-config';
import { AppError } from '../../errors/app-error';
import type { GraphDataSourceFactory } from '../../graph/graph-data-source.factory';
import { approximateTokens } from '../../providers/token-estimate';
import { buildAlwaysSendData } from '../prompts/always-send-data.builder';
import type { PromptLevelsCache } from '../prompts/prompt-levels.cache';

/** A graph's always-sent list as the routes answer it: the list, and the tokens its data takes in every prompt. */
export interface AlwaysSendView extends AlwaysSendList {
  tokens: number;
  maxTokens: number;
}

/**
 * Reading and replacing a graph's always-sent list (GET / PUT /api/ai/graphs/:graphKey/always-send, PROTOCOL §9.6).
 * The graph must be in the caller's workspace (else not_found, as for any graph). A new list is refused whole
 * (bad_request) when it names a node or a node type the graph does not have, or when its data would take more than
 * its share of every prompt (AI_ALWAYS_SEND_MAX_TOKENS). A stored list takes effect on this instance's next prompt;
 * other instances rebuild level 2 when their cached copy expires (RAG_CACHE_TTL_MS).
 */
export class ManageAlwaysSend {
  constructor(
    private readonly lists: AlwaysSendService,
    private readonly graphs: GraphDataSourceFactory,
    private readonly promptLevels: PromptLevelsCache,
    private readonly config: AppConfig,
  ) {}

  async get(principal: Principal, graphKey: string): Promise<AlwaysSendView> {
    const list = await this.lists.get(principal.workspace, graphKey);
    const data = await this.dataOf(principal, graphKey, list);
    return { ...list, tokens: data.tokens, maxTokens: this.config.agent.alwaysSendMaxTokens };
  }

  async put(principal: Principal, graphKey: string, list: AlwaysSendDocument): Promise<AlwaysSendView> {
    const wanted = { nodeKeys: [...new Set(list.nodeKeys)], nodeTypes: [...new Set(list.nodeTypes)] };
    const data = await this.dataOf(principal, graphKey, wanted);
    if (data.missing.length > 0)
      throw AppError.badRequest(`Not in graph "${graphKey}": ${data.missing.join(', ')}`, { missing: data.missing });
    const maxTokens = this.config.agent.alwaysSendMaxTokens;
    if (data.tokens > maxTokens)
      throw AppError.badRequest(
        `The always-sent data would take ~${data.tokens} tokens of every prompt, over its share of ${maxTokens} (AI_ALWAYS_SEND_MAX_TOKENS): send fewer nodes or node types`,
        { tokens: data.tokens, maxTokens },
      );
    const stored = await this.lists.put(principal.workspace, graphKey, wanted);
    this.promptLevels.forget(principal.workspace, graphKey);
    return { ...stored, tokens: data.tokens, maxTokens };
  }

  /** The list's data measured whole (no share applied), read in the caller's workspace. */
  private async dataOf(principal: Principal, graphKey: string, list: AlwaysSendDocument) {
    const dataSource = this.graphs.forWorkspace(principal.workspace);
    const graph = await dataSource.getGraph(graphKey);
    if (!graph) throw AppError.notFound(`Graph "${graphKey}" not found`);
    return buildAlwaysSendData(dataSource, graph, list, {
      locale: this.config.locale,
      maxTokens: Number.POSITIVE_INFINITY,
      countTokens: approximateTokens,
    });
  }
}
