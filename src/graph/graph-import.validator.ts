import { FieldProblem } from '../errors/validation-problems';
import { EventLoopSlicer } from './event-loop.slicer';
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
  const steps = validationSteps(graphKey, input);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * validateGraphImport in slices of the event loop (EventLoopSlicer), for the import of a large graph:
 * 20,000 nodes and their edges take about 100 ms of checks, which would otherwise stall every other
 * request (twice: the controller checks the path key with the rest, the store checks again).
 */
export async function validateGraphImportInSlices(
  graphKey: string,
  input: GraphDocument,
  slicer = new EventLoopSlicer(),
): Promise<GraphImportValidation> {
  const steps = validationSteps(graphKey, input);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await slicer.maybeYield();
  }
}

/** The checks of validateGraphImport, pausing (yield) after each node, edge and node config. */
function* validationSteps(graphKey: string, input: GraphDocument): Generator<void, GraphImportValidation, void> {
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

  const nodes: GraphNode[] = [];
  const handlesByNode = new Map<string, DeclaredHandles>();
  for (const [index, inputNode] of (input.nodes ?? []).entries()) {
    const node = { ...inputNode, graphKey: inputNode.graphKey ?? graphKey };
    nodes.push(node);
    const at = `nodes[${index}]`;
    checkStrings(problems, at, node, ['_key', 'type', 'sheet']);
    checkOwnership(problems, at, node, graphKey, sheets);
    if (typeof node._key === 'string') {
      if (handlesByNode.has(node._key)) problems.add(`${at}._key`, `duplicate node key "${node._key}"`);
      else handlesByNode.set(node._key, declaredHandles(node.handles));
    }
    yield;
  }

  const edges: GraphEdge[] = [];
  const edgeKeys = new Set<string>();
  for (const [index, inputEdge] of (input.edges ?? []).entries()) {
    const edge = { ...inputEdge, graphKey: inputEdge.graphKey ?? graphKey };
    edges.push(edge);
    const at = `edges[${index}]`;
    checkStrings(problems, at, edge, ['_key', 'sheet', 'source', 'sourceHandle', 'target', 'targetHandle']);
    checkOwnership(problems, at, edge, graphKey, sheets);
    if (typeof edge._key === 'string') {
      if (edgeKeys.has(edge._key)) problems.add(`${at}._key`, `duplicate edge key "${edge._key}"`);
      edgeKeys.add(edge._key);
    }
    checkEndpoint(problems, at, edge, 'source', handlesByNode);
    checkEndpoint(problems, at, edge, 'target', handlesByNode);
    yield;
  }

  const configKeys = new Set<string>();
  for (const [index, config] of (input.nodeConfigs ?? []).entries()) {
    const at = `nodeConfigs[${index}]`;
    checkStrings(problems, at, config, ['_key', 'displayName']);
    if (typeof config._key === 'string') {
      if (configKeys.has(config._key)) problems.add(`${at}._key`, `duplicate node config key "${config._key}"`);
      configKeys.add(config._key);
    }
    yield;
  }

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
