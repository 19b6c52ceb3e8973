import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { GraphDocument, GraphEdge, GraphNode, NodeTypeConfig } from '../src/graph/graph.types';
import { sharedFixturePath } from '../test/support/shared-fixtures';

/** One converted n8n workflow of the pool (docs/protocol.md §2 shapes plus provenance we ignore). */
interface PoolGraph {
  graph: { _key: string; name: string; description?: string };
  nodes: GraphNode[];
  edges: GraphEdge[];
  nodeConfigs?: NodeTypeConfig[];
}

let pool: PoolGraph[] | null = null;

/** The 1,405 real workflows of shared/fixtures/workflows/pool (read once, in place). */
export function loadWorkflowPool(): PoolGraph[] {
  if (!pool) {
    const text = gunzipSync(readFileSync(sharedFixturePath('workflows', 'pool', 'pool.jsonl.gz'))).toString('utf8');
    pool = text
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as PoolGraph);
  }
  return pool;
}

/**
 * A large realistic graph: real workflows of the pool, each on its own sheet (named after the
 * workflow), node and edge keys prefixed with the sheet id so they stay unique, until `nodeCount`
 * nodes (the pool is reused, with new prefixes, when it is smaller than asked). The last workflow
 * is cut to land exactly on `nodeCount`; edges to cut nodes are dropped.
 */
export function buildPoolGraph(nodeCount: number, graphKey: string, workspace: string): GraphDocument {
  const workflows = loadWorkflowPool();
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const configs = new Map<string, NodeTypeConfig>();
  const sheetsList: Record<string, string> = {};
  for (let index = 0; nodes.length < nodeCount; index++) {
    const workflow = workflows[index % workflows.length];
    const sheet = String(index);
    const prefix = `s${sheet}-`;
    sheetsList[sheet] = workflow.graph.name;
    const kept = new Set<string>();
    for (const node of workflow.nodes) {
      if (nodes.length >= nodeCount) break;
      kept.add(node._key);
      nodes.push({ ...node, _key: prefix + node._key, graphKey, sheet });
    }
    for (const edge of workflow.edges) {
      if (!kept.has(edge.source) || !kept.has(edge.target)) continue;
      edges.push({
        ...edge,
        _key: prefix + edge._key,
        graphKey,
        sheet,
        source: prefix + edge.source,
        target: prefix + edge.target,
      });
    }
    for (const config of workflow.nodeConfigs ?? []) configs.set(config._key, { ...config, workspace });
  }
  return {
    graph: {
      _key: graphKey,
      workspace,
      name: `Workflow pool (${nodeCount} nodes)`,
      description: 'Real n8n workflows of the shared pool, one per sheet.',
      sheetsList,
    },
    nodes,
    edges,
    nodeConfigs: [...configs.values()],
  };
}
