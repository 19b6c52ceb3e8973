import type { Locale } from '../../config/app-config';
import type { BlockSegment, MessageSegment } from '../../conversation/rich-message';
import type { ThreadEventResult } from '../../conversation/thread-event';
import { BUILT_IN_NODE_TYPES } from '../../graph/graph.types';
import type { GraphDataSource } from '../../graph/graph-data-source';
import type { Graph, GraphEdge, GraphNode, NodeTypeConfig } from '../../graph/graph.types';
import { approximateTokens } from '../../providers/token-estimate';
import { BlockDataTexts, blockDataTexts } from './block-data.texts';
import type { DataCommand } from './data-command';
import { BlockPlan, BlockReferences, planBlock } from './enrichment.processor';
import {
  formatEdge,
  formatNodeConfiguration,
  formatNodesData,
  formatTypeConfiguration,
  NODE_PROCESS_MAX_CHARS,
} from './graph-data.formatter';
import { NodeTypeDataSchema, defaultDataOf, nodeTypeDataSchema } from './node-type-schema';
import { AlwaysSentKeys, deduplicateCommands, DedupedCommand, DedupedPlan, isInLevelTwo } from './query.deduplicator';
import { formatHandles, summarizeHandles } from '../../rag/handle-summary';
import { summarizeData, truncate } from '../../rag/text-truncation';

export interface BlockDataOptions {
  locale: Locale;
  /** Characters of `data` JSON kept per node of a type's sample and of a sheet's listing: the retrieval's (RAG_TRUNCATE_DATA). */
  truncateData: number;
  /** Nodes of a type whose data a `use` block shows. Default 3. */
  sampleNodes?: number;
  /** Longest listing of one sheet's nodes and edges. Default 6,000 characters. */
  sheetMaxChars?: number;
  /** Longest text all the blocks of one message add (the rest is left out, and said so). Default 32,000 characters. */
  maxChars?: number;
}

export interface BlockDataRequest {
  /** The caller's workspace: a key of another workspace is not found there, exactly as an unknown one. */
  dataSource: GraphDataSource;
  graph: Graph;
  segments?: readonly MessageSegment[];
  /** The `mentions` shorthand: node keys pinned like a pointer's. */
  mentions: readonly string[];
  /** What level 2 of the prompt holds already. */
  alwaysSent: AlwaysSentKeys;
}

/** What the blocks of a message loaded: for the retrieval, for level 4 of the prompt, and for its DATA_ADDED event. */
export interface BlockData {
  /** Node keys the retrieval pins ahead of its search hits, in order (the mentions, then each pointer's). */
  mentions: string[];
  /** The level-4 data of the blocks ('' when no block loaded anything beyond pinned nodes). */
  text: string;
  /** One per mention: found, always sent, or not in the graph. */
  mentionResults: ThreadEventResult[];
  /** One per block (with its index in `segments`): what it loaded, or why it could not. */
  blockResults: ThreadEventResult[];
  /** Node types a `create` block named: proposals creating such nodes are checked against their schema. */
  createTypes: string[];
}

const DEFAULT_SAMPLE_NODES = 3;
const DEFAULT_SHEET_MAX_CHARS = 6000;
const DEFAULT_MAX_CHARS = 32_000;
/** Nodes of a type listed by key in its usage stats. */
const STATS_LISTED_NODES = 20;

/**
 * The seed's CommandExecutor for the blocks of a user message: the one place a block's data is read, formatted and
 * accounted for. It reads what the blocks name once (nodes, edges, configurations, the graph's nodes when a type is
 * named), plans each block's commands (EnrichmentProcessor), drops those the prompt holds already or another block
 * loads (QueryDeduplicator), and formats the rest as level-4 text, bounded, with one result per block for the
 * message's DATA_ADDED event. Everything is read through the caller's workspace: an unknown key and another
 * workspace's key fail alike, "not found".
 */
export class BlockDataExecutor {
  private readonly texts: BlockDataTexts;
  private readonly sampleNodes: number;
  private readonly sheetMaxChars: number;
  private readonly maxChars: number;

  constructor(private readonly options: BlockDataOptions) {
    this.texts = blockDataTexts(options.locale);
    this.sampleNodes = options.sampleNodes ?? DEFAULT_SAMPLE_NODES;
    this.sheetMaxChars = options.sheetMaxChars ?? DEFAULT_SHEET_MAX_CHARS;
    this.maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  }

  async execute(request: BlockDataRequest): Promise<BlockData> {
    const blocks: Array<{ block: BlockSegment; segment: number }> = [];
    (request.segments ?? []).forEach((segment, index) => {
      if (segment.type === 'block') blocks.push({ block: segment, segment: index });
    });
    const reader = new GraphReader(request.dataSource, request.graph);
    const refs = await reader.references(blocks, request.mentions);
    const plans = blocks.map(({ block, segment }, index) => planBlock(block, index + 1, segment, refs));
    const deduped = deduplicateCommands(plans, request.alwaysSent, refs.edges);

    const mentions = new Set<string>();
    const mentionResults: ThreadEventResult[] = [];
    for (const key of new Set(request.mentions)) {
      const label = `mention ${key}`;
      if (!refs.nodes.has(key)) mentionResults.push({ ok: false, label, detail: 'not in the graph' });
      else if (isInLevelTwo({ kind: 'mention', key }, request.alwaysSent))
        mentionResults.push({ ok: true, label, detail: 'already in the always-sent data' });
      else {
        mentions.add(key);
        mentionResults.push({ ok: true, label });
      }
    }
    for (const plan of deduped)
      for (const entry of plan.entries)
        if (entry.command.kind === 'mention' && !entry.dropped) mentions.add(entry.command.key);

    const sections: string[] = [];
    let used = 0;
    const blockResults: ThreadEventResult[] = [];
    for (const plan of deduped) {
      const section = await this.sectionOf(plan, reader, refs);
      const fits = used + section.text.length <= this.maxChars;
      if (fits && section.text) {
        sections.push(section.text);
        used += section.text.length;
      }
      blockResults.push(this.resultOf(plan, section, fits));
    }
    return {
      mentions: [...mentions],
      text: sections.length > 0 ? [this.texts.attachedTitle, ...sections].join('\n\n') : '',
      mentionResults,
      blockResults,
      createTypes: [
        ...new Set(
          plans.flatMap((plan) =>
            plan.block.block === 'create' && plan.missing.length === 0 ? [plan.block.config.nodeType] : [],
          ),
        ),
      ],
    };
  }

  /** A block's level-4 text (its title, its data, what was left to another part of the prompt) and what it loaded. */
  private async sectionOf(
    plan: DedupedPlan,
    reader: GraphReader,
    refs: BlockReferences,
  ): Promise<{ text: string; loaded: string[] }> {
    const parts: string[] = [];
    const loaded: string[] = [];
    const pinned = plan.entries.filter((entry) => entry.command.kind === 'mention' && !entry.dropped);
    if (pinned.length > 0) {
      const keys = pinned.map((entry) => entry.command.key).join(', ');
      parts.push(this.texts.pinned(keys));
      loaded.push(`pinned ${pinned.length === 1 ? 'node' : 'nodes'} ${keys}`);
    }
    for (const entry of plan.entries) {
      if (entry.command.kind === 'mention') {
        if (entry.dropped) loaded.push(`node ${entry.command.key} ${droppedWording(entry)}`);
        continue;
      }
      if (entry.dropped) {
        parts.push(`- ${describeCommand(entry.command)}: ${this.droppedText(entry)}`);
        loaded.push(`${describeCommand(entry.command)} ${droppedWording(entry)}`);
        continue;
      }
      const data = await this.dataOf(entry.command, reader, refs);
      parts.push(data.text);
      loaded.push(data.loaded);
    }
    const text =
      parts.length > 0
        ? [this.texts.blockTitle(plan.blockNumber, plan.block.block, plan.subject), ...parts].join('\n')
        : '';
    return { text, loaded };
  }

  private async dataOf(
    command: DataCommand,
    reader: GraphReader,
    refs: BlockReferences,
  ): Promise<{ text: string; loaded: string }> {
    const { texts } = this;
    const { graph } = refs;
    const key = command.key;
    switch (command.kind) {
      case 'node_config': {
        const node = refs.nodes.get(key) as GraphNode;
        return {
          text: `${texts.nodeConfiguration(key)}\n${formatNodeConfiguration(node, graph)}`,
          loaded: `configuration of node ${key} (type ${node.type})`,
        };
      }
      case 'edge': {
        const edge = refs.edges.get(key) as GraphEdge;
        return { text: `${texts.edge(key)}\n${formatEdge(edge, graph)}`, loaded: `edge ${key}` };
      }
      case 'sheet': {
        const [nodes, edges] = await Promise.all([reader.nodesOfSheet(key), reader.edgesOfSheet(key)]);
        const body = truncate(
          [
            `nodes (${nodes.length}):`,
            ...nodes.map(
              (node) =>
                `- ${node._key} (${node.type}): ${summarizeData(node.data, this.options.truncateData) || '(no data)'}`,
            ),
            `edges (${edges.length}):`,
            ...edges.map((edge) => `- ${formatEdge(edge, graph)}`),
          ].join('\n'),
          this.sheetMaxChars,
        );
        const name = graph.sheetsList?.[key] ?? key;
        return {
          text: `${texts.sheet(key, name)}\n${body}`,
          loaded: `sheet ${key} (${name}): ${nodes.length} ${nodes.length === 1 ? 'node' : 'nodes'}, ${edges.length} ${edges.length === 1 ? 'edge' : 'edges'}`,
        };
      }
      case 'type_config': {
        const [config, nodes] = await Promise.all([reader.configOf(key), reader.nodesOfType(key)]);
        const body = formatTypeConfiguration(key, config, nodes.length, this.options.locale);
        return { text: `${texts.typeConfiguration(key)}\n${body}`, loaded: 'configuration' };
      }
      case 'type_schema': {
        const schema = await reader.schemaOf(key);
        return {
          text: `${texts.typeSchema(key, schema.source, schema.nodes)}\n${JSON.stringify(schema.schema)}`,
          loaded:
            schema.source === 'declared'
              ? `data schema of ${key} (declared)`
              : `data schema of ${key} (inferred from ${schema.nodes} ${schema.nodes === 1 ? 'node' : 'nodes'})`,
        };
      }
      case 'type_sample': {
        const nodes = await reader.nodesOfType(key);
        const shown = nodes.slice(0, this.sampleNodes);
        return {
          text: `${texts.typeSample(key, shown.length, nodes.length)}\n${formatNodesData(shown, graph, this.options.truncateData) || '(none)'}`,
          loaded: `data of ${shown.length} of ${nodes.length} ${nodes.length === 1 ? 'node' : 'nodes'}`,
        };
      }
      case 'type_stats': {
        const nodes = await reader.nodesOfType(key);
        const perSheet = new Map<string, number>();
        for (const node of nodes) perSheet.set(node.sheet, (perSheet.get(node.sheet) ?? 0) + 1);
        const sheets = [...perSheet].map(
          ([sheet, count]) => `${sheet} (${graph.sheetsList?.[sheet] ?? sheet}): ${count}`,
        );
        const listed = nodes.slice(0, STATS_LISTED_NODES).map((node) => node._key);
        const more = nodes.length > listed.length ? ` (+${nodes.length - listed.length} more)` : '';
        return {
          text: `${texts.typeStats(key)}\nnodes: ${nodes.length}${listed.length > 0 ? ` (${listed.join(', ')}${more})` : ''}\nsheets: ${sheets.join('; ') || '(none)'}`,
          loaded: `used by ${nodes.length} ${nodes.length === 1 ? 'node' : 'nodes'}${perSheet.size > 0 ? ` on ${perSheet.size === 1 ? 'sheet' : 'sheets'} ${[...perSheet.keys()].map((sheet) => graph.sheetsList?.[sheet] ?? sheet).join(', ')}` : ''}`,
        };
      }
      case 'type_defaults': {
        const [config, schema] = await Promise.all([reader.configOf(key), reader.schemaOf(key)]);
        const template = config?.node;
        const lines = [`type: ${key}`];
        const handles = formatHandles(summarizeHandles(template?.handles), { withIds: true });
        lines.push(`handles: ${handles || '(none: give them in the proposal)'}`);
        if (template?.size) lines.push(`size: ${JSON.stringify(template.size)}`);
        if (typeof template?.process === 'string' && template.process)
          lines.push(`process (template):\n${truncate(template.process, NODE_PROCESS_MAX_CHARS)}`);
        const data = defaultDataOf(config, schema);
        lines.push(`data: ${data === undefined ? '(none)' : summarizeData(data, NODE_PROCESS_MAX_CHARS)}`);
        return { text: `${texts.typeDefaults(key)}\n${lines.join('\n')}`, loaded: 'defaults of a new node' };
      }
      default:
        return { text: '', loaded: '' };
    }
  }

  private droppedText(entry: DedupedCommand): string {
    const dropped = entry.dropped as NonNullable<DedupedCommand['dropped']>;
    return dropped.reason === 'always_sent' ? this.texts.alwaysSent : this.texts.sameAsBlock(dropped.blockNumber);
  }

  /** The DATA_ADDED result of a block: ok when everything it named was found and its data fit. */
  private resultOf(plan: BlockPlan, section: { text: string; loaded: string[] }, fits: boolean): ThreadEventResult {
    const details = [...section.loaded];
    if (plan.missing.length > 0) details.push(`not found: ${plan.missing.join(', ')}`);
    if (!fits) details.push('left out: the attached data reached its size limit');
    else if (section.text) details.push(`~${approximateTokens(section.text).toLocaleString('en-US')} tokens`);
    return {
      ok: plan.missing.length === 0 && fits,
      label: `block ${plan.blockNumber} ${plan.block.block} ${plan.subject}`,
      detail: details.join('; '),
      segment: plan.segment,
    };
  }
}

function describeCommand(command: DataCommand): string {
  switch (command.kind) {
    case 'mention':
      return `node ${command.key}`;
    case 'node_config':
      return `configuration of node ${command.key}`;
    case 'edge':
      return `edge ${command.key}`;
    case 'sheet':
      return `sheet ${command.key}`;
    case 'type_config':
      return `configuration of node type ${command.key}`;
    case 'type_schema':
      return `data schema of ${command.key}`;
    case 'type_sample':
      return `data of the nodes of ${command.key}`;
    case 'type_stats':
      return `usage of ${command.key}`;
    case 'type_defaults':
      return `defaults of ${command.key}`;
  }
}

function droppedWording(entry: DedupedCommand): string {
  const dropped = entry.dropped as NonNullable<DedupedCommand['dropped']>;
  return dropped.reason === 'always_sent' ? 'already in the always-sent data' : `as in block ${dropped.blockNumber}`;
}

/** The graph's documents the blocks of one message read, each read once. */
class GraphReader {
  private configs: Promise<NodeTypeConfig[]> | null = null;
  private allNodes: Promise<GraphNode[]> | null = null;
  private allEdges: Promise<GraphEdge[]> | null = null;
  private readonly schemas = new Map<string, Promise<NodeTypeDataSchema>>();

  constructor(
    private readonly dataSource: GraphDataSource,
    private readonly graph: Graph,
  ) {}

  async references(
    blocks: ReadonlyArray<{ block: BlockSegment }>,
    mentions: readonly string[],
  ): Promise<BlockReferences> {
    const nodeKeys = new Set(mentions);
    const edgeKeys = new Set<string>();
    let namesTypes = false;
    for (const { block } of blocks) {
      if (block.block === 'pointer') {
        for (const key of block.config.nodeKeys ?? []) nodeKeys.add(key);
        for (const key of block.config.edgeKeys ?? []) edgeKeys.add(key);
      } else if (block.block === 'modify_config') nodeKeys.add(block.config.nodeKey);
      else namesTypes = true;
    }
    const edges = new Map<string, GraphEdge>();
    if (edgeKeys.size > 0)
      for (const edge of await this.edges()) if (edgeKeys.has(edge._key)) edges.set(edge._key, edge);
    for (const edge of edges.values()) nodeKeys.add(edge.source).add(edge.target);
    const nodes = new Map<string, GraphNode>();
    if (nodeKeys.size > 0)
      for (const node of await this.dataSource.getNodesByKeys(this.graph._key, [...nodeKeys]))
        nodes.set(node._key, node);
    const nodeTypes = new Set<string>();
    if (namesTypes) {
      const [configs, all] = await Promise.all([this.nodeConfigs(), this.nodes()]);
      for (const type of BUILT_IN_NODE_TYPES) nodeTypes.add(type);
      for (const config of configs) nodeTypes.add(config._key);
      for (const node of all) nodeTypes.add(node.type);
    }
    return { graph: this.graph, nodes, edges, nodeTypes };
  }

  async configOf(nodeType: string): Promise<NodeTypeConfig | undefined> {
    return (await this.nodeConfigs()).find((config) => config._key === nodeType);
  }

  async nodesOfType(nodeType: string): Promise<GraphNode[]> {
    return (await this.nodes()).filter((node) => node.type === nodeType);
  }

  async nodesOfSheet(sheet: string): Promise<GraphNode[]> {
    return (await this.nodes()).filter((node) => node.sheet === sheet);
  }

  async edgesOfSheet(sheet: string): Promise<GraphEdge[]> {
    return (await this.edges()).filter((edge) => edge.sheet === sheet);
  }

  schemaOf(nodeType: string): Promise<NodeTypeDataSchema> {
    let schema = this.schemas.get(nodeType);
    if (!schema) {
      schema = Promise.all([this.configOf(nodeType), this.nodesOfType(nodeType)]).then(([config, nodes]) =>
        nodeTypeDataSchema(config, nodes),
      );
      this.schemas.set(nodeType, schema);
    }
    return schema;
  }

  private nodeConfigs(): Promise<NodeTypeConfig[]> {
    return (this.configs ??= this.dataSource.getNodeConfigs());
  }

  private nodes(): Promise<GraphNode[]> {
    return (this.allNodes ??= this.dataSource.getNodes(this.graph._key));
  }

  private edges(): Promise<GraphEdge[]> {
    return (this.allEdges ??= this.dataSource.getEdges(this.graph._key));
  }
}
