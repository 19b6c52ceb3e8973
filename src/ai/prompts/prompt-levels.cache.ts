import { LRUCache } from 'lru-cache';
import type { AlwaysSendList } from '../../always-send/always-send';
import { Role } from '../../auth/principal';
import type { Locale } from '../../config/app-config';
import { GraphChangeNotifier } from '../../graph/graph-change.notifier';
import { GraphDataSource } from '../../graph/graph-data-source';
import { Graph, NodeTypeConfig } from '../../graph/graph.types';
import { summarizeGraph } from '../../rag/graph-summary';
import { summarizeNodeTypeConfig } from '../../rag/node-type-config-summary';
import type { CountTokens } from '../../providers/token-estimate';
import { NOTHING_ALWAYS_SENT } from '../blocks/query.deduplicator';
import { AlwaysSendData, buildAlwaysSendData } from './always-send-data.builder';
import { countGraph } from './system-prompt-context';
import { buildGraphState, buildStaticInstructions, buildWorkspaceData, PromptLevels } from './system-prompt.builder';

export interface PromptLevelsCacheOptions {
  /** How long a graph's state (level 3) is reused when no change was heard (another instance may change the graph); 0 rebuilds it for every request. */
  graphStateTtlMs: number;
  /** Graphs whose state is kept (least recently used dropped first). Default 1,000. */
  maxGraphs?: number;
  /** Changes heard here drop the graph's state at once. */
  notifier?: GraphChangeNotifier;
  /** Each graph's always-sent list and its share of the prompt; absent: level 2 holds the node types only. */
  alwaysSend?: {
    listOf(workspace: string, graphKey: string): Promise<AlwaysSendList>;
    maxTokens: number;
    countTokens: CountTokens;
  };
}

/**
 * The stable prompt levels of each request, built once and reused,
 * because every request sends them:
 *  - level 1 per role and locale (a handful of texts);
 *  - level 2 per node-config list, for frozen lists only (the embedded store hands out one frozen list
 *    per configs revision, so a change is a new list; other lists are summarized every time), followed by the
 *    graph's always-sent data, kept per graph and locale as level 3 is (and dropped when its list is replaced);
 *  - level 3 per graph and locale, which needs the graph's nodes and edges to count them: kept until
 *    a change of that graph is heard (GraphChangeNotifier: the change feed, imports, applied actions,
 *    live edits) and at most `graphStateTtlMs` (the retrieval cache's lifetime: a change made through
 *    another instance is seen as soon as a cached retrieval would be).
 */
export class PromptLevelsCache {
  private readonly instructions = new Map<string, string>();
  private readonly workspaces = new WeakMap<readonly NodeTypeConfig[], Map<Locale, string>>();
  private readonly graphStates: LRUCache<string, { summary: string; text: string }> | null;
  private readonly alwaysSent: LRUCache<string, AlwaysSendData> | null;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: PromptLevelsCacheOptions) {
    this.graphStates =
      options.graphStateTtlMs > 0
        ? new LRUCache({ max: options.maxGraphs ?? 1000, ttl: options.graphStateTtlMs })
        : null;
    this.alwaysSent =
      options.graphStateTtlMs > 0 && options.alwaysSend
        ? new LRUCache({ max: options.maxGraphs ?? 1000, ttl: options.graphStateTtlMs })
        : null;
    this.unsubscribe =
      options.notifier?.subscribe((event) => this.forget(event.workspace, event.graphKey)) ?? (() => undefined);
  }

  async levelsFor(dataSource: GraphDataSource, graph: Graph, role: Role, locale: Locale): Promise<PromptLevels> {
    const [configs, graphState, alwaysSent] = await Promise.all([
      dataSource.getNodeConfigs(),
      this.graphStateOf(dataSource, graph, locale),
      this.alwaysSentOf(dataSource, graph, locale),
    ]);
    const types = this.workspaceFor(configs, locale);
    return {
      instructions: this.instructionsFor(role, locale),
      workspace: alwaysSent?.text ? `${types}\n\n${alwaysSent.text}` : types,
      graphState,
      alwaysSent: alwaysSent?.sent ?? NOTHING_ALWAYS_SENT,
    };
  }

  /** Drops a graph's state and always-sent data (every locale). */
  forget(workspace: string, graphKey: string): void {
    for (const cache of [this.graphStates, this.alwaysSent]) {
      if (!cache) continue;
      for (const key of [...cache.keys()]) if (key.startsWith(scope(workspace, graphKey))) cache.delete(key);
    }
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }

  private instructionsFor(role: Role, locale: Locale): string {
    const key = `${role}:${locale}`;
    let text = this.instructions.get(key);
    if (text === undefined) {
      text = buildStaticInstructions(role, locale);
      this.instructions.set(key, text);
    }
    return text;
  }

  private workspaceFor(configs: readonly NodeTypeConfig[], locale: Locale): string {
    if (!Object.isFrozen(configs)) return buildWorkspaceData(configs.map(summarizeNodeTypeConfig), locale);
    let byLocale = this.workspaces.get(configs);
    if (!byLocale) {
      byLocale = new Map();
      this.workspaces.set(configs, byLocale);
    }
    let text = byLocale.get(locale);
    if (text === undefined) {
      text = buildWorkspaceData(configs.map(summarizeNodeTypeConfig), locale);
      byLocale.set(locale, text);
    }
    return text;
  }

  private async graphStateOf(dataSource: GraphDataSource, graph: Graph, locale: Locale): Promise<string> {
    const key = `${scope(dataSource.workspace, graph._key)}${locale}`;
    const summarized = summarizeGraph(graph);
    const summary = JSON.stringify(summarized);
    const cached = this.graphStates?.get(key);
    // A changed graph document (renamed, sheets changed) is a new state even before its change is heard.
    if (cached && cached.summary === summary) return cached.text;
    const [nodes, edges] = await Promise.all([dataSource.getNodes(graph._key), dataSource.getEdges(graph._key)]);
    const text = buildGraphState(summarized, countGraph(graph, nodes, edges), locale);
    this.graphStates?.set(key, { summary, text });
    return text;
  }

  private async alwaysSentOf(
    dataSource: GraphDataSource,
    graph: Graph,
    locale: Locale,
  ): Promise<AlwaysSendData | null> {
    const settings = this.options.alwaysSend;
    if (!settings) return null;
    const key = `${scope(dataSource.workspace, graph._key)}${locale}`;
    const cached = this.alwaysSent?.get(key);
    if (cached) return cached;
    const list = await settings.listOf(dataSource.workspace, graph._key);
    const data = await buildAlwaysSendData(dataSource, graph, list, {
      locale,
      maxTokens: settings.maxTokens,
      countTokens: settings.countTokens,
    });
    this.alwaysSent?.set(key, data);
    return data;
  }
}

function scope(workspace: string, graphKey: string): string {
  return `${workspace}\u0000${graphKey}\u0000`;
}
