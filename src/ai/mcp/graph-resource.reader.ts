import type { GraphDataSourceFactory } from '../../graph/graph-data-source.factory';
import type { Graph } from '../../graph/graph.types';

/** The URI scheme of the MCP resources: `graph://<graphKey>` and `graph://<graphKey>/sheets/<sheetId>`. */
const SCHEME = 'graph://';
const JSON_MIME = 'application/json';

/** One entry of `resources/list`. */
export interface GraphResource {
  uri: string;
  name: string;
  title: string;
  description?: string;
  mimeType: string;
}

/** The templates of `resources/templates/list`: how to name a graph or a sheet a listing did not show. */
export const GRAPH_RESOURCE_TEMPLATES = [
  {
    uriTemplate: `${SCHEME}{graphKey}`,
    name: 'graph',
    title: 'A workflow graph',
    description: 'Its name, description, sheets and size.',
    mimeType: JSON_MIME,
  },
  {
    uriTemplate: `${SCHEME}{graphKey}/sheets/{sheetId}`,
    name: 'sheet',
    title: 'One sheet of a workflow graph',
    description: 'Its nodes (key, type, position) and edges; read a node in full with read_node_detail.',
    mimeType: JSON_MIME,
  },
];

/** What `resources/read` answers: one JSON text, or null when the URI names nothing of the workspace. */
export interface GraphResourceContent {
  uri: string;
  mimeType: string;
  text: string;
}

/**
 * The MCP resources of one workspace: each graph, and each sheet of each graph. A graph or sheet of another workspace
 * (or none) reads as null: the same answer whether it exists elsewhere or not.
 */
export class GraphResourceReader {
  constructor(private readonly graphs: GraphDataSourceFactory) {}

  async list(workspace: string): Promise<GraphResource[]> {
    const dataSource = this.graphs.forWorkspace(workspace);
    const resources: GraphResource[] = [];
    for (const graphKey of await this.graphs.graphKeysOf(workspace)) {
      const graph = await dataSource.getGraph(graphKey);
      if (!graph) continue;
      resources.push({
        uri: graphUri(graph._key),
        name: graph._key,
        title: graph.name,
        ...(graph.description ? { description: graph.description } : {}),
        mimeType: JSON_MIME,
      });
      for (const [sheetId, sheetName] of Object.entries(graph.sheetsList)) {
        resources.push({
          uri: sheetUri(graph._key, sheetId),
          name: `${graph._key}/${sheetId}`,
          title: `${graph.name}: ${sheetName}`,
          mimeType: JSON_MIME,
        });
      }
    }
    return resources;
  }

  async read(workspace: string, uri: string): Promise<GraphResourceContent | null> {
    const target = parseUri(uri);
    if (!target) return null;
    const dataSource = this.graphs.forWorkspace(workspace);
    const graph = await dataSource.getGraph(target.graphKey);
    if (!graph) return null;
    if (target.sheetId === undefined) {
      const [nodes, edges] = await Promise.all([dataSource.getNodes(graph._key), dataSource.getEdges(graph._key)]);
      return json(uri, { ...graphSummary(graph), nodeCount: nodes.length, edgeCount: edges.length });
    }
    const sheetName = graph.sheetsList[target.sheetId];
    if (sheetName === undefined) return null;
    const [nodes, edges] = await Promise.all([
      dataSource.getNodes(graph._key, target.sheetId),
      dataSource.getEdges(graph._key, target.sheetId),
    ]);
    return json(uri, {
      graphKey: graph._key,
      sheet: { id: target.sheetId, name: sheetName },
      nodes: nodes.map((node) => ({ key: node._key, type: node.type, posX: node.posX, posY: node.posY })),
      edges: edges.map((edge) => ({
        key: edge._key,
        source: edge.source,
        sourceHandle: edge.sourceHandle,
        target: edge.target,
        targetHandle: edge.targetHandle,
        ...(edge.label ? { label: edge.label } : {}),
      })),
    });
  }
}

function graphSummary(graph: Graph) {
  return {
    graphKey: graph._key,
    name: graph.name,
    ...(graph.description ? { description: graph.description } : {}),
    sheets: Object.entries(graph.sheetsList).map(([id, name]) => ({ id, name, uri: sheetUri(graph._key, id) })),
  };
}

function graphUri(graphKey: string): string {
  return `${SCHEME}${encodeURIComponent(graphKey)}`;
}

function sheetUri(graphKey: string, sheetId: string): string {
  return `${graphUri(graphKey)}/sheets/${encodeURIComponent(sheetId)}`;
}

function parseUri(uri: string): { graphKey: string; sheetId?: string } | null {
  if (!uri.startsWith(SCHEME)) return null;
  const parts = uri.slice(SCHEME.length).split('/');
  try {
    if (parts.length === 1 && parts[0]) return { graphKey: decodeURIComponent(parts[0]) };
    if (parts.length === 3 && parts[0] && parts[1] === 'sheets' && parts[2])
      return { graphKey: decodeURIComponent(parts[0]), sheetId: decodeURIComponent(parts[2]) };
  } catch {
    return null;
  }
  return null;
}

function json(uri: string, value: object): GraphResourceContent {
  return { uri, mimeType: JSON_MIME, text: JSON.stringify(value) };
}
