import type { AlwaysSendList } from '../../always-send/always-send';
import type { Locale } from '../../config/app-config';
import { BUILT_IN_NODE_TYPES } from '../../graph/graph.types';
import type { GraphDataSource } from '../../graph/graph-data-source';
import type { Graph } from '../../graph/graph.types';
import type { CountTokens } from '../../providers/token-estimate';
import { blockDataTexts } from '../blocks/block-data.texts';
import {
  formatNodeConfiguration,
  formatNodesData,
  formatTypeConfiguration,
  NODE_DATA_MAX_CHARS,
} from '../blocks/graph-data.formatter';
import type { AlwaysSentKeys } from '../blocks/query.deduplicator';

export interface AlwaysSendDataOptions {
  locale: Locale;
  /** The always-sent data's share of the prompt (AI_ALWAYS_SEND_MAX_TOKENS): entries beyond it are left out. */
  maxTokens: number;
  countTokens: CountTokens;
}

/** A graph's always-sent data as level 2 of its prompts carries it. */
export interface AlwaysSendData {
  /** '' when nothing is sent. */
  text: string;
  /** Estimated tokens of `text`. */
  tokens: number;
  /** What is in `text` whole: what blocks of a message never load again. */
  sent: AlwaysSentKeys;
  /** Entries that did not fit the share, e.g. "node fetch-api", "node type filter". */
  leftOut: string[];
  /** Entries the graph does not have (a node deleted since, a type nothing knows). */
  missing: string[];
}

/**
 * The always-sent data of a graph (docs/protocol.md §9.6), in the list's order: each node's whole configuration, each
 * type's configuration and the data of the graph's nodes of that type, up to `maxTokens` (later entries are left out
 * and named). The same documents give the same bytes, so level 2 stays cacheable until one of them changes.
 */
export async function buildAlwaysSendData(
  dataSource: GraphDataSource,
  graph: Graph,
  list: Pick<AlwaysSendList, 'nodeKeys' | 'nodeTypes'>,
  options: AlwaysSendDataOptions,
): Promise<AlwaysSendData> {
  const sent = { nodeKeys: new Set<string>(), nodeTypes: new Set<string>() };
  if (list.nodeKeys.length === 0 && list.nodeTypes.length === 0)
    return { text: '', tokens: 0, sent, leftOut: [], missing: [] };
  const texts = blockDataTexts(options.locale);
  const [nodes, configs, allNodes] = await Promise.all([
    list.nodeKeys.length > 0 ? dataSource.getNodesByKeys(graph._key, list.nodeKeys) : Promise.resolve([]),
    list.nodeTypes.length > 0 ? dataSource.getNodeConfigs() : Promise.resolve([]),
    list.nodeTypes.length > 0 ? dataSource.getNodes(graph._key) : Promise.resolve([]),
  ]);
  const byKey = new Map(nodes.map((node) => [node._key, node]));
  const entries: Array<{ name: string; text: string; add: () => void }> = [];
  const missing: string[] = [];
  for (const key of list.nodeKeys) {
    const node = byKey.get(key);
    if (!node) missing.push(`node ${key}`);
    else
      entries.push({
        name: `node ${key}`,
        text: `${texts.alwaysSendNode(key)}\n${formatNodeConfiguration(node, graph)}`,
        add: () => sent.nodeKeys.add(key),
      });
  }
  const knownTypes = new Set<string>([...BUILT_IN_NODE_TYPES, ...configs.map((config) => config._key)]);
  for (const node of allNodes) knownTypes.add(node.type);
  for (const type of list.nodeTypes) {
    if (!knownTypes.has(type)) {
      missing.push(`node type ${type}`);
      continue;
    }
    const ofType = allNodes.filter((node) => node.type === type);
    const config = configs.find((candidate) => candidate._key === type);
    entries.push({
      name: `node type ${type}`,
      text: [
        texts.typeConfiguration(type),
        formatTypeConfiguration(type, config, ofType.length, options.locale),
        texts.alwaysSendTypeNodes(type, ofType.length),
        formatNodesData(ofType, graph, NODE_DATA_MAX_CHARS) || '(none)',
      ].join('\n'),
      add: () => sent.nodeTypes.add(type),
    });
  }
  if (entries.length === 0) return { text: '', tokens: 0, sent, leftOut: [], missing };

  const title = texts.alwaysSendTitle(graph._key);
  const parts = [title];
  let tokens = options.countTokens(title);
  const leftOut: string[] = [];
  for (const entry of entries) {
    const cost = options.countTokens(`\n\n${entry.text}`);
    if (leftOut.length === 0 && tokens + cost <= options.maxTokens) {
      parts.push(entry.text);
      tokens += cost;
      entry.add();
    } else leftOut.push(entry.name);
  }
  if (leftOut.length > 0) parts.push(texts.alwaysSendLeftOut(leftOut.join(', ')));
  const text = parts.join('\n\n');
  return { text, tokens: options.countTokens(text), sent, leftOut, missing };
}
