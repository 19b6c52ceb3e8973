import { FieldProblem } from '../errors/validation-problems';
import { declaredHandles, DeclaredHandles, edgeEndpointProblem } from './edge-endpoint.rule';
import { GraphDocument, GraphEdge, GraphNode } from './graph.types';

export interface GraphImportValidation {
  /** The document with every node's and edge's missing `graphKey` filled with the path key. */
  document: GraphDocument;
  /** Every integrity problem found, one entry per field path (empty when the document is importable). */
  problems: FieldProblem[];
}

/**
 * Checks that a graph document can be stored as one consistent graph under `graphKey`, and lists
 * EVERY problem (not just the first) so an operator fixes an export in one pass:
 *  - `graph._key` equals the path key; node and edge `graphKey`s equal it (filled when absent);
 *  - node keys, edge keys and node-config keys are unique;
 *  - every node's and edge's `sheet` is a key of `graph.sheetsList`;
 *  - every edge's source and target exist;
 *  - when a node declares handles, an edge leaving it names one of its `out` handles and an edge
 *    entering it one of its `in` handles (nodes without handles accept any handle id).
 * Pure: no store access. Every GraphStore.importGraph runs it before writing anything.
 */
export function validateGraphImport(graphKey: string, input: GraphDocument): GraphImportValidation {
  const problems = new ProblemList();
  const sheets = isRecord(input.graph?.sheetsList) ? input.graph.sheetsList : {};
  if (!isRecord(input.graph?.sheetsList))
    problems.add('graph.sheetsList', 'sheetsList must be an object of sheetId → name');
  if (input.graph?._key !== graphKey) {
    problems.add(
      'graph._key',
      `graph._key "${String(input.graph?._key)}" must equal the graph key of the path "${graphKey}"`,
    );
  }

  const nodes = (input.nodes ?? []).map((node) => ({ ...node, graphKey: node.graphKey ?? graphKey }));
  const edges = (input.edges ?? []).map((edge) => ({ ...edge, graphKey: edge.graphKey ?? graphKey }));

  const handlesByNode = new Map<string, DeclaredHandles>();
  nodes.forEach((node, index) => {
    const at = `nodes[${index}]`;
    checkStrings(problems, at, node, ['_key', 'type', 'sheet']);
    checkOwnership(problems, at, node, graphKey, sheets);
    if (typeof node._key !== 'string') return;
    if (handlesByNode.has(node._key)) problems.add(`${at}._key`, `duplicate node key "${node._key}"`);
    else handlesByNode.set(node._key, declaredHandles(node.handles));
  });

  const edgeKeys = new Set<string>();
  edges.forEach((edge, index) => {
    const at = `edges[${index}]`;
    checkStrings(problems, at, edge, ['_key', 'sheet', 'source', 'sourceHandle', 'target', 'targetHandle']);
    checkOwnership(problems, at, edge, graphKey, sheets);
    if (typeof edge._key === 'string') {
      if (edgeKeys.has(edge._key)) problems.add(`${at}._key`, `duplicate edge key "${edge._key}"`);
      edgeKeys.add(edge._key);
    }
    checkEndpoint(problems, at, edge, 'source', handlesByNode);
    checkEndpoint(problems, at, edge, 'target', handlesByNode);
  });

  const configKeys = new Set<string>();
  (input.nodeConfigs ?? []).forEach((config, index) => {
    const at = `nodeConfigs[${index}]`;
    checkStrings(problems, at, config, ['_key', 'displayName']);
    if (typeof config._key !== 'string') return;
    if (configKeys.has(config._key)) problems.add(`${at}._key`, `duplicate node config key "${config._key}"`);
    configKeys.add(config._key);
  });

  return {
    document: { graph: input.graph, nodes, edges, nodeConfigs: input.nodeConfigs ?? [] },
    problems: problems.toList(),
  };
}

class ProblemList {
  private readonly byField = new Map<string, string[]>();

  add(field: string, problem: string): void {
    const list = this.byField.get(field);
    if (list) list.push(problem);
    else this.byField.set(field, [problem]);
  }

  toList(): FieldProblem[] {
    return [...this.byField].map(([field, problems]) => ({ field, problems }));
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkStrings(problems: ProblemList, at: string, item: object, fields: string[]): void {
  for (const field of fields) {
    const value = (item as Record<string, unknown>)[field];
    if (typeof value !== 'string' || value.length === 0)
      problems.add(`${at}.${field}`, `${field} must be a non-empty string`);
  }
}

function checkOwnership(
  problems: ProblemList,
  at: string,
  item: GraphNode | GraphEdge,
  graphKey: string,
  sheets: Record<string, unknown>,
): void {
  if (item.graphKey !== graphKey) {
    problems.add(
      `${at}.graphKey`,
      `graphKey "${String(item.graphKey)}" must equal the graph key of the path "${graphKey}"`,
    );
  }
  if (typeof item.sheet === 'string' && !Object.prototype.hasOwnProperty.call(sheets, item.sheet)) {
    problems.add(`${at}.sheet`, `sheet "${item.sheet}" is not in graph.sheetsList`);
  }
}

function checkEndpoint(
  problems: ProblemList,
  at: string,
  edge: GraphEdge,
  end: 'source' | 'target',
  handlesByNode: Map<string, DeclaredHandles>,
): void {
  const broken = edgeEndpointProblem(edge, end, handlesByNode);
  if (broken) problems.add(`${at}.${broken.field}`, broken.problem);
}
