import { buildWorkflowUnion, readWorkflowLines, WorkflowFixture } from '../src/cli/workflow-union.builder';
import { GraphDocument } from '../src/graph/graph.types';
import { sharedFixturePath } from '../test/support/shared-fixtures';

let pool: WorkflowFixture[] | null = null;

/** The 1,405 real workflows of shared/fixtures/workflows/pool (read once, in place). */
export function loadWorkflowPool(): WorkflowFixture[] {
  pool ??= readWorkflowLines(sharedFixturePath('workflows', 'pool', 'pool.jsonl.gz'));
  return pool;
}

/**
 * A large realistic graph: real workflows of the pool, each on its own sheet (named after the
 * workflow), node and edge keys prefixed with the sheet id so they stay unique, until `nodeCount`
 * nodes (see buildWorkflowUnion).
 */
export function buildPoolGraph(nodeCount: number, graphKey: string, workspace: string): GraphDocument {
  return buildWorkflowUnion(loadWorkflowPool(), {
    nodeCount,
    graphKey,
    workspace,
    name: `Workflow pool (${nodeCount} nodes)`,
    description: 'Real n8n workflows of the shared pool, one per sheet.',
  }).document;
}
