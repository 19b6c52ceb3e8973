import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { appErrorOf } from '../../../test/support/app-error-of';
import { toFieldProblems } from '../../errors/validation-problems';
import { nbaWorkflowDemo } from '../demo/nba-workflow.demo';
import { validateGraphDocumentBody } from './graph-document-body.validator';
import { GraphDocumentDto } from './graph-document.dto';
import { NodeTypeConfigDto } from './node-type-config.dto';

const LIMITS = { maxNodes: 1_000, maxEdges: 1_000 };
const demo = (): Record<string, unknown> => structuredClone(nbaWorkflowDemo) as unknown as Record<string, unknown>;

/** What the global ValidationPipe finds: the whole document validated in one piece. */
function problemsInOnePiece(body: Record<string, unknown>) {
  const whole = plainToInstance(GraphDocumentDto, body);
  const sorted = toFieldProblems(validateSync(whole, { whitelist: true, forbidNonWhitelisted: true }));
  return sorted.sort((left, right) => left.field.localeCompare(right.field));
}

async function problemsInSlices(body: Record<string, unknown>) {
  const error = await appErrorOf(validateGraphDocumentBody(body, LIMITS));
  const details = (error.details ?? []) as Array<{ field: string }>;
  return [...details].sort((left, right) => left.field.localeCompare(right.field));
}

describe(validateGraphDocumentBody.name, () => {
  it('gives back the document with its nodes, edges and node configs as DTOs', async () => {
    const body = demo();
    const document = await validateGraphDocumentBody(body, LIMITS);
    expect(document).toBeInstanceOf(GraphDocumentDto);
    expect(document.nodeConfigs).toHaveLength(nbaWorkflowDemo.nodeConfigs.length);
    expect(document.nodeConfigs?.every((config) => config instanceof NodeTypeConfigDto)).toBe(true);
    expect(document.nodes).toHaveLength(nbaWorkflowDemo.nodes.length);
    expect(JSON.parse(JSON.stringify(document))).toEqual(JSON.parse(JSON.stringify(nbaWorkflowDemo)));
    const withoutConfigs = demo();
    delete withoutConfigs.nodeConfigs;
    expect((await validateGraphDocumentBody(withoutConfigs, LIMITS)).nodeConfigs).toBeUndefined();
  });

  it('finds the same problems as the whole document validated in one piece, node configs item by item included', async () => {
    const configs = structuredClone(nbaWorkflowDemo.nodeConfigs) as unknown[];
    configs[0] = { ...(configs[0] as object), displayName: '', extra: true };
    configs[1] = 'not a config';
    const nodes = structuredClone(nbaWorkflowDemo.nodes) as unknown[];
    nodes[2] = { ...(nodes[2] as object), posX: 'left' };
    for (const body of [
      { ...demo(), nodeConfigs: configs, nodes },
      { ...demo(), nodeConfigs: 'none' },
      { ...demo(), unknownTopLevel: 1, graph: { ...nbaWorkflowDemo.graph, name: 7 } },
    ]) {
      const expected = problemsInOnePiece(body);
      expect(expected.length).toBeGreaterThan(0);
      expect(await problemsInSlices(body)).toEqual(expected);
    }
    expect(await problemsInSlices({ ...demo(), nodeConfigs: configs })).toEqual(
      expect.arrayContaining([
        { field: 'nodeConfigs.0.displayName', problems: ['displayName should not be empty'] },
        { field: 'nodeConfigs.0.extra', problems: ['property extra should not exist'] },
        {
          field: 'nodeConfigs.1',
          problems: ['each value in nested property nodeConfigs must be either object or array'],
        },
      ]),
    );
  });
});
