import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync, ValidatorOptions } from 'class-validator';
import { AppError } from '../../errors/app-error';
import { describeFieldProblems, FieldProblem, toFieldProblems } from '../../errors/validation-problems';
import { EventLoopSlicer } from '../event-loop.slicer';
import { GraphDocumentDto } from './graph-document.dto';
import { GraphEdgeDto } from './graph-edge.dto';
import { GraphNodeDto } from './graph-node.dto';
import { NodeTypeConfigDto } from './node-type-config.dto';

/** Most nodes and edges one graph may hold (GRAPH_MAX_NODES, GRAPH_MAX_EDGES): beyond, the import is refused with 413. */
export interface GraphSizeLimits {
  maxNodes: number;
  maxEdges: number;
}

/** The global ValidationPipe's rules (app.factory.ts): unknown keys are refused, never stripped. */
const VALIDATOR_OPTIONS: ValidatorOptions = { whitelist: true, forbidNonWhitelisted: true };

/**
 * Validates the body of PUT /api/graphs/:graphKey exactly as the global ValidationPipe would
 * (GraphDocumentDto, class-transformer then class-validator, the same field paths and messages), but
 * node by node and edge by edge in slices of the event loop (EventLoopSlicer): a 50,000-node
 * document took 1.5 s of CPU in one piece, during which every other request and stream stalled.
 * A graph over the size limits is refused first, with 413 payload_too_large.
 * Resolves with the transformed document; throws AppError bad_request naming every bad or unknown field.
 */
export async function validateGraphDocumentBody(body: unknown, limits: GraphSizeLimits): Promise<GraphDocumentDto> {
  // Not an object (an array, since the body parser only gives objects and arrays): every field is then missing.
  const raw = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<
    string,
    unknown
  >;
  const nodes = Array.isArray(raw.nodes) ? (raw.nodes as unknown[]) : null;
  const edges = Array.isArray(raw.edges) ? (raw.edges as unknown[]) : null;
  for (const [list, name, max] of [
    [nodes, 'nodes', limits.maxNodes],
    [edges, 'edges', limits.maxEdges],
  ] as const) {
    if (list && list.length > max) {
      throw new AppError('payload_too_large', `The graph has ${list.length} ${name}: at most ${max} can be imported`, {
        [name]: list.length,
        limit: max,
      });
    }
  }

  // Node configs are items too: a workspace of workflows brings hundreds, with their templates (90 ms in one piece for 391).
  const nodeConfigs = Array.isArray(raw.nodeConfigs) ? (raw.nodeConfigs as unknown[]) : null;

  // The document without its lists first (graph, unknown top-level keys), then each item.
  const shell = plainToInstance(GraphDocumentDto, {
    ...raw,
    nodes: nodes ? [] : raw.nodes,
    edges: edges ? [] : raw.edges,
    ...(nodeConfigs ? { nodeConfigs: [] } : {}),
  });
  const problems = toFieldProblems(validateSync(shell, VALIDATOR_OPTIONS));
  const slicer = new EventLoopSlicer();
  const validNodes = await validateItems(GraphNodeDto, 'nodes', nodes ?? [], problems, slicer);
  const validEdges = await validateItems(GraphEdgeDto, 'edges', edges ?? [], problems, slicer);
  const validConfigs = nodeConfigs
    ? await validateItems(NodeTypeConfigDto, 'nodeConfigs', nodeConfigs, problems, slicer)
    : null;
  if (problems.length > 0) throw AppError.badRequest(`Invalid request: ${describeFieldProblems(problems)}`, problems);
  shell.nodes = validNodes;
  shell.edges = validEdges;
  if (validConfigs) shell.nodeConfigs = validConfigs;
  return shell;
}

async function validateItems<T extends object>(
  dtoClass: ClassConstructor<T>,
  name: string,
  items: unknown[],
  problems: FieldProblem[],
  slicer: EventLoopSlicer,
): Promise<T[]> {
  const valid: T[] = [];
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push({
        field: `${name}.${index}`,
        problems: [`each value in nested property ${name} must be either object or array`],
      });
      continue;
    }
    const instance = plainToInstance(dtoClass, item);
    problems.push(...toFieldProblems(validateSync(instance, VALIDATOR_OPTIONS), `${name}.${index}`));
    valid.push(instance);
    await slicer.maybeYield();
  }
  return valid;
}
