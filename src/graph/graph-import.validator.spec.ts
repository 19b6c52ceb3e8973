import { readdirSync, readFileSync } from 'node:fs';
import { describeWithSharedFixtures, sharedFixturePath } from '../../test/support/shared-fixtures';
import { nbaWorkflowDemo } from './demo/nba-workflow.demo';
import { EventLoopSlicer } from './event-loop.slicer';
import { validateGraphImport, validateGraphImportInSlices } from './graph-import.validator';
import { GraphDocument } from './graph.types';

const demo = (): GraphDocument => structuredClone(nbaWorkflowDemo);
const fields = (document: GraphDocument, key = 'nba-workflow') =>
  validateGraphImport(key, document).problems.map((problem) => problem.field);

describe(validateGraphImport.name, () => {
  it('accepts the demo graph', () => {
    expect(validateGraphImport('nba-workflow', demo()).problems).toEqual([]);
  });

  it('fills missing graphKeys with the path key', () => {
    const document = demo();
    delete (document.nodes[0] as Partial<GraphDocument['nodes'][0]>).graphKey;
    delete (document.edges[0] as Partial<GraphDocument['edges'][0]>).graphKey;
    const result = validateGraphImport('nba-workflow', document);
    expect(result.problems).toEqual([]);
    expect(result.document.nodes[0].graphKey).toBe('nba-workflow');
    expect(result.document.edges[0].graphKey).toBe('nba-workflow');
  });

  it('lists every problem at once, by field path', () => {
    const document = demo();
    document.graph._key = 'other';
    document.nodes[1]._key = document.nodes[0]._key;
    document.nodes[2].graphKey = 'elsewhere';
    document.nodes[3].sheet = '9';
    document.edges[1]._key = document.edges[0]._key;
    document.edges[2].target = 'ghost';
    document.edges[3].sheet = '7';
    document.nodeConfigs[1]._key = document.nodeConfigs[0]._key;
    expect(fields(document)).toEqual([
      'graph._key',
      'nodes[1]._key',
      'nodes[2].graphKey',
      'nodes[3].sheet',
      'edges[0].target', // node "root" was renamed away by the duplicate
      'edges[1]._key',
      'edges[1].source',
      'edges[2].target',
      'edges[3].sheet',
      'nodeConfigs[1]._key',
    ]);
  });

  it('checks handle ids and directions on nodes that declare handles', () => {
    const document = demo();
    const edge = (index: number) => document.edges[index];
    edge(0).sourceHandle = 'R-9'; // entry-form has no R-9
    edge(1).targetHandle = 'R-0'; // fetch-api's R-0 is an output
    edge(2).sourceHandle = 'L-0'; // fetch-api's L-0 is an input
    const problems = validateGraphImport('nba-workflow', document).problems;
    expect(problems).toEqual([
      { field: 'edges[0].sourceHandle', problems: ['node "entry-form" has no handle "R-9"'] },
      { field: 'edges[1].targetHandle', problems: ['handle "R-0" of node "fetch-api" is not an "in" handle'] },
      { field: 'edges[2].sourceHandle', problems: ['handle "L-0" of node "fetch-api" is not an "out" handle'] },
    ]);
  });

  it('accepts any handle id on a node that declares no handles', () => {
    const document = demo();
    document.edges.push({
      ...document.edges[0],
      _key: 'to-note',
      target: 'disconnected-note',
      targetHandle: 'anything',
      sheet: '1',
    });
    expect(validateGraphImport('nba-workflow', document).problems).toEqual([]);
  });

  it('reports missing required strings instead of crashing', () => {
    const document = demo() as unknown as { nodes: Array<Record<string, unknown>>; graph: Record<string, unknown> };
    delete document.nodes[0].type;
    document.graph.sheetsList = null;
    expect(fields(document as unknown as GraphDocument)).toEqual(
      expect.arrayContaining(['graph.sheetsList', 'nodes[0].type']),
    );
  });
});

describe(validateGraphImportInSlices.name, () => {
  it('finds what validateGraphImport finds, letting the event loop turn between slices', async () => {
    const document = demo();
    document.nodes[1]._key = document.nodes[0]._key;
    document.edges[0].target = 'ghost';
    delete (document.nodes[2] as Partial<GraphDocument['nodes'][0]>).graphKey;
    let turns = 0;
    let counting = true;
    const count = () => {
      turns += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    // A slice of 0 ms: every item is followed by a turn of the event loop.
    const sliced = await validateGraphImportInSlices('nba-workflow', document, new EventLoopSlicer(0));
    counting = false;
    expect(sliced).toEqual(validateGraphImport('nba-workflow', document));
    expect(sliced.problems.map((problem) => problem.field)).toEqual(
      expect.arrayContaining(['nodes[1]._key', 'edges[0].target']),
    );
    expect(turns).toBeGreaterThan(document.nodes.length);
  });
});

describeWithSharedFixtures(`${validateGraphImport.name} on the real workflows`, () => {
  it('accepts every converted workflow', () => {
    const directory = sharedFixturePath('workflows', 'graphs');
    for (const file of readdirSync(directory).filter((name) => name.endsWith('.json'))) {
      const document = JSON.parse(readFileSync(`${directory}/${file}`, 'utf8')) as GraphDocument;
      expect({ file, problems: validateGraphImport(document.graph._key, document).problems }).toEqual({
        file,
        problems: [],
      });
    }
  });
});
