import {
  EdgeDirection,
  GraphDataSource,
  NodeNeighborhood,
  ScoredNode,
  SearchScope,
  VectorQuery,
} from '../../src/graph/graph-data-source';
import { Graph, GraphDocument, GraphEdge, GraphNode, NodeTypeConfig } from '../../src/graph/graph.types';

/**
 * A naive, read-only GraphDataSource over in-memory GraphDocuments, for unit tests.
 * Search is a plain BM25 over the node's key, type, process, data and its type's config text;
 * vector search is an exact cosine scan over the nodes' `embedding` arrays. Correct, not fast.
 */
export class InMemoryGraphDataSource implements GraphDataSource {
  private readonly graphs = new Map<string, GraphDocument>();
  private readonly configs: NodeTypeConfig[];

  constructor(
    readonly workspace: string,
    documents: GraphDocument[],
    extraConfigs: NodeTypeConfig[] = [],
  ) {
    const configs = new Map<string, NodeTypeConfig>();
    for (const document of documents) {
      if (document.graph.workspace !== workspace) continue;
      this.graphs.set(document.graph._key, structuredClone(document));
      for (const config of document.nodeConfigs) if (config.workspace === workspace) configs.set(config._key, config);
    }
    for (const config of extraConfigs) configs.set(config._key, config);
    this.configs = [...configs.values()];
  }

  async getGraph(graphKey: string): Promise<Graph | null> {
    return this.graphs.get(graphKey)?.graph ?? null;
  }

  async getNodes(graphKey: string, sheetId?: string, limit?: number): Promise<GraphNode[]> {
    return this.nodesOf(graphKey)
      .filter((node) => sheetId === undefined || node.sheet === sheetId)
      .slice(0, limit)
      .map(withoutEmbedding);
  }

  async getEdges(graphKey: string, sheetId?: string): Promise<GraphEdge[]> {
    return this.edgesOf(graphKey).filter((edge) => sheetId === undefined || edge.sheet === sheetId);
  }

  async getNodeByKey(graphKey: string, nodeKey: string): Promise<GraphNode | null> {
    const node = this.nodesOf(graphKey).find((candidate) => candidate._key === nodeKey);
    return node ? withoutEmbedding(node) : null;
  }

  async getNodesByKeys(graphKey: string, nodeKeys: string[]): Promise<GraphNode[]> {
    const byKey = new Map(this.nodesOf(graphKey).map((node) => [node._key, node]));
    return nodeKeys.flatMap((key) => {
      const node = byKey.get(key);
      return node ? [withoutEmbedding(node)] : [];
    });
  }

  async getEdgesOfNode(graphKey: string, nodeKey: string, direction: EdgeDirection): Promise<GraphEdge[]> {
    return this.edgesOf(graphKey).filter(
      (edge) =>
        ((direction === 'out' || direction === 'any') && edge.source === nodeKey) ||
        ((direction === 'in' || direction === 'any') && edge.target === nodeKey),
    );
  }

  async getNodeConfigs(): Promise<NodeTypeConfig[]> {
    return this.configs;
  }

  async searchNodes(
    graphKey: string,
    query: string,
    maxResults: number,
    scope: SearchScope = {},
  ): Promise<ScoredNode[]> {
    const terms = tokenize(query);
    const nodes = this.nodesOf(graphKey);
    const inScope = (node: GraphNode) => scope.sheet === undefined || node.sheet === scope.sheet;
    if (terms.length === 0 || nodes.length === 0) return [];
    const configs = new Map(this.configs.map((config) => [config._key, config]));
    const documents = nodes.map((node) => tokenize(searchableText(node, configs.get(node.type))));
    const averageLength = documents.reduce((sum, tokens) => sum + tokens.length, 0) / documents.length || 1;
    const k1 = 1.2;
    const b = 0.75;
    const scored = nodes.map((node, index) => {
      const tokens = documents[index];
      let score = 0;
      for (const term of new Set(terms)) {
        const frequency = tokens.filter((token) => token === term).length;
        if (frequency === 0) continue;
        const containing = documents.filter((doc) => doc.includes(term)).length;
        const idf = Math.log(1 + (nodes.length - containing + 0.5) / (containing + 0.5));
        score += (idf * frequency * (k1 + 1)) / (frequency + k1 * (1 - b + (b * tokens.length) / averageLength));
      }
      return { node: withoutEmbedding(node), score };
    });
    return scored
      .filter((hit) => hit.score > 0 && inScope(hit.node))
      .sort((a, b2) => b2.score - a.score)
      .slice(0, maxResults);
  }

  async searchNodesByVector(
    graphKey: string,
    query: VectorQuery,
    maxResults: number,
    scope: SearchScope = {},
  ): Promise<ScoredNode[]> {
    return this.nodesOf(graphKey)
      .filter((node) => node.embedding && node.embeddingModel === query.model)
      .filter((node) => scope.sheet === undefined || node.sheet === scope.sheet)
      .map((node) => ({ node: withoutEmbedding(node), score: cosine(query.vector, node.embedding as number[]) }))
      .filter((hit) => hit.score > query.minScore)
      .sort((a, b) => b.score - a.score)
      .slice(0, maxResults);
  }

  async getNeighborhood(
    graphKey: string,
    nodeKey: string,
    depth: number,
    direction: EdgeDirection,
  ): Promise<NodeNeighborhood> {
    const byKey = new Map(this.nodesOf(graphKey).map((node) => [node._key, node]));
    if (!byKey.has(nodeKey)) return { nodes: [], edges: [] };
    const edges = this.edgesOf(graphKey);
    const visited = [nodeKey];
    const seen = new Set(visited);
    const walked = new Set<GraphEdge>();
    let frontier = [nodeKey];
    for (let level = 0; level < depth && frontier.length > 0; level++) {
      const next: string[] = [];
      for (const current of frontier) {
        for (const edge of edges) {
          const neighbor =
            (direction !== 'in' && edge.source === current && edge.target) ||
            (direction !== 'out' && edge.target === current && edge.source) ||
            null;
          if (!neighbor) continue;
          walked.add(edge);
          if (seen.has(neighbor)) continue;
          seen.add(neighbor);
          visited.push(neighbor);
          next.push(neighbor);
        }
      }
      frontier = next;
    }
    return {
      nodes: visited.flatMap((key) => (byKey.has(key) ? [withoutEmbedding(byKey.get(key) as GraphNode)] : [])),
      edges: [...walked].filter((edge) => seen.has(edge.source) && seen.has(edge.target)),
    };
  }

  private nodesOf(graphKey: string): GraphNode[] {
    return this.graphs.get(graphKey)?.nodes ?? [];
  }

  private edgesOf(graphKey: string): GraphEdge[] {
    return this.graphs.get(graphKey)?.edges ?? [];
  }
}

function withoutEmbedding(node: GraphNode): GraphNode {
  const { embedding: _embedding, ...rest } = node;
  return structuredClone(rest);
}

function searchableText(node: GraphNode, config: NodeTypeConfig | undefined): string {
  return [
    node._key,
    node.type,
    node.process ?? '',
    node.data === undefined ? '' : JSON.stringify(node.data),
    config?.displayName ?? '',
    config?.description ?? '',
  ].join(' ');
}

function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function cosine(a: Float32Array, b: number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i] * b[i];
    normA += a[i] * a[i];
    normB += b[i] * b[i];
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
