import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { GraphDocument, GraphEdge, GraphNode, NodeTypeConfig } from '../graph/graph.types';

/** One converted workflow of the shared fixtures (in the protocol's graph shapes; provenance blocks are ignored). */
export interface WorkflowFixture {
  graph: { _key: string; name: string; description?: string };
  nodes: GraphNode[];
  edges: GraphEdge[];
  nodeConfigs?: NodeTypeConfig[];
}

/** Where a workflow landed in a union. */
export interface UnionSheet {
  sheet: string;
  /** Prepended to the workflow's node and edge keys. */
  prefix: string;
  workflowKey: string;
  name: string;
}

export interface WorkflowUnion {
  document: GraphDocument;
  sheets: UnionSheet[];
}

export interface WorkflowUnionOptions {
  nodeCount: number;
  graphKey: string;
  workspace: string;
  name: string;
  description?: string;
}

/** The workflows of a `.jsonl.gz` file, one JSON graph a line (the shared pool of 1,405 workflows). */
export function readWorkflowLines(file: string): WorkflowFixture[] {
  return gunzipSync(readFileSync(file))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as WorkflowFixture);
}

/**
 * A large realistic graph: the workflows in order, each on its own sheet (named after the
 * workflow), node and edge keys prefixed with `s{sheet}-` so they stay unique, until `nodeCount`
 * nodes (the list is reused, with new prefixes, when it is shorter than asked). The last workflow
 * is cut to land exactly on `nodeCount`; edges to cut nodes are dropped. Node type configs are
 * merged by type key (the workspace has one config per type).
 */
export function buildWorkflowUnion(
  workflows: readonly WorkflowFixture[],
  options: WorkflowUnionOptions,
): WorkflowUnion {
  const { nodeCount, graphKey, workspace } = options;
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const configs = new Map<string, NodeTypeConfig>();
  const sheetsList: Record<string, string> = {};
  const sheets: UnionSheet[] = [];
  for (let index = 0; nodes.length < nodeCount && workflows.length > 0; index++) {
    const workflow = workflows[index % workflows.length];
    const sheet = String(index);
    const prefix = `s${sheet}-`;
    sheetsList[sheet] = workflow.graph.name;
    sheets.push({ sheet, prefix, workflowKey: workflow.graph._key, name: workflow.graph.name });
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
    document: {
      graph: {
        _key: graphKey,
        workspace,
        name: options.name,
        ...(options.description ? { description: options.description } : {}),
        sheetsList,
      },
      nodes,
      edges,
      nodeConfigs: [...configs.values()],
    },
    sheets,
  };
}
