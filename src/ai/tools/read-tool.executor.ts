import { AppError } from '../../errors/app-error';
import { EdgeDirection, GraphDataSource } from '../../graph/graph-data-source';
import { BUILT_IN_NODE_TYPES, Graph, GraphEdge, GraphNode, NodeTypeConfig } from '../../graph/graph.types';
import { Logger } from '../../observability/logger';
import { distancesFrom } from '../../rag/graph-distance';
import { formatHandles, summarizeHandles } from '../../rag/handle-summary';
import { truncate } from '../../rag/text-truncation';
import { BUILT_IN_NODE_TYPE_DESCRIPTIONS, isBuiltInNodeType } from '../../graph/built-in-node-types';
import { describeViolations, JsonSchema, JsonSchemaValidator } from './json-schema.validator';
import { isReadTool, READ_TOOL_NAMES, ReadToolName } from './read-tool-name';
import { READ_TOOL_SCHEMAS } from './read-tool.definitions';
import { serializeToolResult } from './tool-result.limiter';

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

type ToolArguments = Record<string, unknown>;
type ToolResult = Record<string, unknown>;

/** An error the model can correct: becomes `{ "error": ..., ... }`, never an exception. */
class ToolInputError extends Error {
  constructor(
    message: string,
    readonly extra: ToolResult = {},
  ) {
    super(message);
  }
}

/**
 * The offered schemas say `additionalProperties: false`, but an unknown argument of a read tool is
 * not an error (seed 000: read tools are validated without `.strict()`, they mutate nothing): it is
 * dropped and named in `ignoredArguments`, so a stray key does not cost the model a round.
 */
const VALIDATORS = Object.fromEntries(
  READ_TOOL_NAMES.map((name) => [name, new JsonSchemaValidator({ ...READ_TOOL_SCHEMAS[name], additionalProperties: true })]),
) as Record<ReadToolName, JsonSchemaValidator>;

const logger = new Logger('read-tools');

/**
 * Runs the 7 read tools (seed 000 readTools) for ONE graph of one workspace. `execute` never throws:
 * an unknown tool, malformed JSON, invalid arguments, an unknown node or a store failure all come
 * back as a JSON error result the model can act on. Results are JSON with long fields truncated and
 * a total size cap.
 */
export class ReadToolExecutor {
  private readonly limits: ReadToolLimits;

  constructor(
    private readonly dataSource: GraphDataSource,
    readonly graphKey: string,
    limits: Partial<ReadToolLimits> = {},
  ) {
    this.limits = { ...DEFAULT_READ_TOOL_LIMITS, ...limits };
  }

  async execute(toolName: string, rawArguments: string): Promise<string> {
    let ignored: ToolResult = {};
    try {
      if (!isReadTool(toolName)) {
        throw new ToolInputError(`Unknown tool "${toolName}".`, { availableTools: [...READ_TOOL_NAMES] });
      }
      const { known, unknown } = splitArguments(parseArguments(rawArguments), READ_TOOL_SCHEMAS[toolName]);
      if (unknown.length > 0) ignored = { ignoredArguments: unknown };
      const violations = VALIDATORS[toolName].validate(known);
      if (violations.length > 0) {
        throw new ToolInputError(`Invalid arguments for ${toolName}: ${describeViolations(violations)}`, {
          problems: violations,
        });
      }
      const result = await this.run(toolName, known);
      return serializeToolResult({ ...ignored, ...result }, this.limits.resultMaxChars);
    } catch (error) {
      return serializeToolResult({ ...this.errorResult(toolName, error), ...ignored }, this.limits.resultMaxChars);
    }
  }

  private errorResult(toolName: string, error: unknown): ToolResult {
    if (error instanceof ToolInputError) return { error: error.message, tool: toolName, ...error.extra };
    if (error instanceof AppError && error.code === 'not_found') return { error: error.message, tool: toolName };
    logger.warn('read_tool_failed', {
      toolName,
      graphKey: this.graphKey,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    return { error: `The tool ${toolName} failed while reading the graph; try again later or answer with what you know.`, tool: toolName };
  }

  private run(toolName: ReadToolName, args: ToolArguments): Promise<ToolResult> {
    switch (toolName) {
      case 'read_graph_overview':
        return this.readGraphOverview(args.graphKey as string | undefined);
      case 'search_nodes':
        return this.searchNodes(args.query as string, args.sheetId as string | undefined, (args.maxResults as number) ?? 10);
      case 'explore_neighborhood':
        return this.exploreNeighborhood(
          args.nodeKey as string,
          (args.maxDepth as number) ?? 2,
          (args.direction as EdgeDirection) ?? 'any',
        );
      case 'read_node_detail':
        return this.readNodeDetail(args.nodeKey as string);
      case 'read_node_config':
        return this.readNodeConfig(args.typeKey as string);
      case 'list_available_node_types':
        return this.listAvailableNodeTypes();
      case 'list_node_edges':
        return this.listNodeEdges(args.nodeKey as string, (args.direction as EdgeDirection) ?? 'any');
    }
  }

  private async readGraphOverview(requestedKey: string | undefined): Promise<ToolResult> {
    if (requestedKey !== undefined && requestedKey !== this.graphKey) {
      throw new ToolInputError(
        `This conversation is about graph "${this.graphKey}" only; other graphs cannot be read. Call read_graph_overview without graphKey.`,
      );
    }
    const graph = await this.graph();
    const [nodes, edges, configs] = await Promise.all([
      this.dataSource.getNodes(this.graphKey),
      this.dataSource.getEdges(this.graphKey),
      this.dataSource.getNodeConfigs(),
    ]);
    const sheetIds = new Set([...Object.keys(graph.sheetsList ?? {}), ...nodes.map((node) => node.sheet)]);
    const typeCounts = new Map<string, number>();
    for (const node of nodes) typeCounts.set(node.type, (typeCounts.get(node.type) ?? 0) + 1);
    const configsByType = new Map(configs.map((config) => [config._key, config]));
    return {
      graph: {
        key: graph._key,
        name: graph.name,
        ...(graph.description ? { description: truncate(graph.description, 1_000) } : {}),
        ...(graph.category ? { category: graph.category } : {}),
      },
      totals: { nodes: nodes.length, edges: edges.length },
      sheets: [...sheetIds].map((id) => ({
        id,
        name: graph.sheetsList?.[id] ?? id,
        nodes: nodes.filter((node) => node.sheet === id).length,
        edges: edges.filter((edge) => edge.sheet === id).length,
      })),
      nodeTypes: [...typeCounts.entries()]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .map(([type, count]) => ({
          type,
          ...(configsByType.get(type)?.displayName ? { displayName: configsByType.get(type)?.displayName } : {}),
          ...(isBuiltInNodeType(type) ? { builtIn: true } : {}),
          count,
        })),
    };
  }

  private async searchNodes(query: string, sheet: string | undefined, maxResults: number): Promise<ToolResult> {
    const graph = await this.graph();
    const sheetId = sheet === undefined ? undefined : resolveSheet(graph, sheet);
    // The store ranks the whole graph; a sheet filter needs a deeper list to keep enough hits.
    const depth = sheetId === undefined ? maxResults : Math.max(maxResults * 5, 50);
    const [hits, configs] = await Promise.all([
      this.dataSource.searchNodes(this.graphKey, query, depth),
      this.dataSource.getNodeConfigs(),
    ]);
    const configsByType = new Map(configs.map((config) => [config._key, config]));
    const results = hits
      .filter((hit) => sheetId === undefined || hit.node.sheet === sheetId)
      .slice(0, maxResults)
      .map((hit) => ({
        key: hit.node._key,
        type: hit.node.type,
        ...typeName(hit.node.type, configsByType),
        sheet: sheetName(graph, hit.node.sheet),
        score: Math.round(hit.score * 1000) / 1000,
        process: truncate(processOf(hit.node), this.limits.previewChars),
        data: dataPreview(hit.node.data, this.limits.previewChars),
      }));
    return {
      query,
      ...(sheetId !== undefined ? { sheetId } : {}),
      count: results.length,
      results,
      ...(results.length === 0
        ? { hint: 'No node matched. Try other or fewer words, or read_graph_overview to see the node types.' }
        : {}),
    };
  }

  private async exploreNeighborhood(nodeKey: string, maxDepth: number, direction: EdgeDirection): Promise<ToolResult> {
    const graph = await this.graph();
    const neighborhood = await this.dataSource.getNeighborhood(this.graphKey, nodeKey, maxDepth, direction);
    if (neighborhood.nodes.length === 0) throw unknownNode(nodeKey);
    const distances = distancesFrom(nodeKey, neighborhood.edges, direction);
    const configsByType = new Map((await this.dataSource.getNodeConfigs()).map((config) => [config._key, config]));
    const nodes = neighborhood.nodes
      .map((node, order) => ({ node, order, distance: distances.get(node._key) ?? maxDepth }))
      .sort((a, b) => a.distance - b.distance || a.order - b.order);
    const listed = nodes.slice(0, this.limits.maxNeighborhoodNodes);
    const listedKeys = new Set(listed.map((entry) => entry.node._key));
    return {
      nodeKey,
      maxDepth,
      direction,
      nodes: listed.map(({ node, distance }) => ({
        key: node._key,
        type: node.type,
        ...typeName(node.type, configsByType),
        sheet: sheetName(graph, node.sheet),
        distance,
      })),
      edges: neighborhood.edges
        .filter((edge) => listedKeys.has(edge.source) && listedKeys.has(edge.target))
        .map(edgeView),
      ...(nodes.length > listed.length
        ? { moreNodes: nodes.length - listed.length, hint: 'Lower maxDepth or choose a direction to see fewer, closer nodes.' }
        : {}),
    };
  }

  private async readNodeDetail(nodeKey: string): Promise<ToolResult> {
    const graph = await this.graph();
    const node = await this.dataSource.getNodeByKey(this.graphKey, nodeKey);
    if (!node) throw unknownNode(nodeKey);
    const [incoming, outgoing, configs] = await Promise.all([
      this.dataSource.getEdgesOfNode(this.graphKey, nodeKey, 'in'),
      this.dataSource.getEdgesOfNode(this.graphKey, nodeKey, 'out'),
      this.dataSource.getNodeConfigs(),
    ]);
    const configsByType = new Map(configs.map((config) => [config._key, config]));
    const process = processOf(node);
    const data = dataDetail(node.data, this.limits.detailDataChars);
    return {
      key: node._key,
      type: node.type,
      ...typeName(node.type, configsByType),
      ...(isBuiltInNodeType(node.type) ? { builtIn: true } : {}),
      sheet: node.sheet,
      sheetName: sheetName(graph, node.sheet),
      position: { x: node.posX, y: node.posY },
      ...(node.size ? { size: node.size } : {}),
      process: truncate(process, this.limits.detailProcessChars),
      ...(process.length > this.limits.detailProcessChars ? { processLength: process.length } : {}),
      ...data,
      handles: formatHandles(summarizeHandles(node.handles), { withIds: true }),
      incomingEdges: incoming.slice(0, this.limits.maxListedEdges).map(edgeView),
      outgoingEdges: outgoing.slice(0, this.limits.maxListedEdges).map(edgeView),
    };
  }

  private async readNodeConfig(typeKey: string): Promise<ToolResult> {
    if (isBuiltInNodeType(typeKey)) {
      const description = BUILT_IN_NODE_TYPE_DESCRIPTIONS[typeKey];
      return { key: typeKey, builtIn: true, description: description.en, handles: description.handles };
    }
    const configs = await this.dataSource.getNodeConfigs();
    const config = configs.find((candidate) => candidate._key === typeKey);
    if (!config) {
      throw new ToolInputError(`Node type "${typeKey}" does not exist in this workspace.`, {
        availableTypes: [...BUILT_IN_NODE_TYPES, ...configs.map((candidate) => candidate._key).sort()].slice(0, 100),
      });
    }
    return {
      key: config._key,
      displayName: config.displayName || config._key,
      ...(config.description ? { description: config.description } : {}),
      ...(config.category ? { category: config.category } : {}),
      ...(config.icon ? { icon: config.icon } : {}),
      handles: formatHandles(summarizeHandles(config.node?.handles), { withIds: true }),
      ...(config.node?.size ? { size: config.node.size } : {}),
      ...(typeof config.node?.process === 'string' && config.node.process
        ? { defaultProcess: truncate(config.node.process, this.limits.detailProcessChars) }
        : {}),
    };
  }

  private async listAvailableNodeTypes(): Promise<ToolResult> {
    const configs = await this.dataSource.getNodeConfigs();
    return {
      builtIn: BUILT_IN_NODE_TYPES.map((type) => ({ key: type, description: BUILT_IN_NODE_TYPE_DESCRIPTIONS[type].en })),
      custom: [...configs]
        .sort((a, b) => (a._key < b._key ? -1 : a._key > b._key ? 1 : 0))
        .map((config: NodeTypeConfig) => ({
          key: config._key,
          displayName: config.displayName || config._key,
          ...(config.category ? { category: config.category } : {}),
          ...(config.description ? { description: truncate(config.description, this.limits.previewChars) } : {}),
        })),
    };
  }

  private async listNodeEdges(nodeKey: string, direction: EdgeDirection): Promise<ToolResult> {
    await this.graph();
    const node = await this.dataSource.getNodeByKey(this.graphKey, nodeKey);
    if (!node) throw unknownNode(nodeKey);
    const edges = await this.dataSource.getEdgesOfNode(this.graphKey, nodeKey, direction);
    const listed = edges.slice(0, this.limits.maxListedEdges);
    return {
      nodeKey,
      direction,
      count: edges.length,
      edges: listed.map((edge) => ({ ...edgeView(edge), direction: edge.source === nodeKey ? 'out' : 'in' })),
      ...(edges.length > listed.length ? { moreEdges: edges.length - listed.length } : {}),
    };
  }

  /** The bound graph; it may have been deleted since the conversation started. */
  private async graph(): Promise<Graph> {
    const graph = await this.dataSource.getGraph(this.graphKey);
    if (!graph) throw new ToolInputError(`Graph "${this.graphKey}" no longer exists.`);
    return graph;
  }
}

function parseArguments(raw: string): ToolArguments {
  // Models send "" (or nothing) for a tool without parameters.
  if (raw === undefined || raw === null || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new ToolInputError(
      `The arguments are not valid JSON (${error instanceof Error ? error.message : 'parse error'}). Send a JSON object.`,
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ToolInputError('The arguments must be a JSON object.');
  }
  return parsed as ToolArguments;
}

/** The arguments the tool's schema declares, and the names of the others. */
function splitArguments(args: ToolArguments, schema: JsonSchema): { known: ToolArguments; unknown: string[] } {
  const declared = schema.properties ?? {};
  const known: ToolArguments = {};
  const unknown: string[] = [];
  for (const [name, value] of Object.entries(args)) {
    if (Object.prototype.hasOwnProperty.call(declared, name)) known[name] = value;
    else unknown.push(name);
  }
  return { known, unknown };
}

function resolveSheet(graph: Graph, sheet: string): string {
  const sheets = graph.sheetsList ?? {};
  if (Object.prototype.hasOwnProperty.call(sheets, sheet)) return sheet;
  const byName = Object.entries(sheets).find(([, name]) => name === sheet);
  if (byName) return byName[0];
  throw new ToolInputError(`Sheet "${sheet}" does not exist in this graph.`, {
    sheets: Object.entries(sheets).map(([id, name]) => ({ id, name })),
  });
}

function unknownNode(nodeKey: string): ToolInputError {
  return new ToolInputError(`Node "${nodeKey}" does not exist in this graph.`, {
    hint: 'Use search_nodes to find the right node key; keys are case-sensitive local keys.',
  });
}

function typeName(type: string, configsByType: ReadonlyMap<string, NodeTypeConfig>): { typeName?: string } {
  const displayName = configsByType.get(type)?.displayName;
  return displayName && displayName !== type ? { typeName: displayName } : {};
}

function sheetName(graph: Graph, sheetId: string): string {
  return graph.sheetsList?.[sheetId] ?? sheetId;
}

function processOf(node: GraphNode): string {
  return typeof node.process === 'string' ? node.process : '';
}

function dataPreview(data: unknown, maxChars: number): string | undefined {
  if (data === undefined || data === null) return undefined;
  return truncate(safeJson(data), maxChars);
}

/** Small data stays a JSON value (cheaper and clearer than an escaped string); large data becomes a truncated string. */
function dataDetail(data: unknown, maxChars: number): ToolResult {
  if (data === undefined || data === null) return {};
  const json = safeJson(data);
  if (json.length <= maxChars) return { data };
  return { data: truncate(json, maxChars), dataTruncated: true, dataLength: json.length };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function edgeView(edge: GraphEdge): ToolResult {
  return {
    key: edge._key,
    from: `${edge.source}:${edge.sourceHandle}`,
    to: `${edge.target}:${edge.targetHandle}`,
    ...(edge.label ? { label: edge.label } : {}),
    sheet: edge.sheet,
  };
}
