import { nbaWorkflowDemo } from '../demo/nba-workflow.demo';
import { GraphDocument } from '../graph.types';
import {
  documentKeyProblem,
  documentKeyProblems,
  localKeyProblem,
  MAX_DOCUMENT_KEY_BYTES,
} from './arango-document-key';

describe('ArangoDB document keys', () => {
  it('accepts letters, digits and the punctuation ArangoDB allows, up to 254 bytes', () => {
    for (const key of [
      'nba-workflow',
      'fetch-api',
      'ai_3f9c0a1b2c3d4e5f',
      "a_b-c.d@e(f)g+h,i=j;k$l!m*n'o%p:q",
      'x'.repeat(254),
    ]) {
      expect({ key, problem: documentKeyProblem(key) }).toEqual({ key, problem: null });
    }
  });

  it('names why ArangoDB would refuse a key (error 1221)', () => {
    expect(documentKeyProblem('my node')).toMatch(/characters ArangoDB does not allow/);
    for (const key of ['a/b', 'a#b', 'équipe', 'tab\tkey', 'a"b', 'a?b', 'a[b]', 'a&b'])
      expect({ key, problem: documentKeyProblem(key) }).toEqual({ key, problem: expect.any(String) });
    expect(documentKeyProblem('')).toBe('is empty');
    expect(documentKeyProblem('x'.repeat(255))).toBe(`is 255 bytes long, over ArangoDB's ${MAX_DOCUMENT_KEY_BYTES}`);
  });

  it('holds a node or edge key to the document key it makes with its graph key: {graphKey}-{key}, 254 bytes in all', () => {
    expect(localKeyProblem('g', 'x'.repeat(252))).toBeNull();
    expect(localKeyProblem('g', 'x'.repeat(253))).toMatch(/255 bytes long, over ArangoDB's 254/);
    expect(localKeyProblem('g', 'has space')).toMatch(/characters/);
  });

  it('lists every key of a graph document ArangoDB could not store, by field, and nothing for the demo graph', () => {
    expect(documentKeyProblems('nba-workflow', nbaWorkflowDemo)).toEqual([]);
    const document: GraphDocument = structuredClone(nbaWorkflowDemo);
    document.nodes[1]._key = 'fetch api';
    document.edges[2]._key = 'x'.repeat(250);
    document.nodeConfigs[0]._key = 'api/call';
    expect(documentKeyProblems('nba workflow', document)).toEqual([
      { field: 'graph._key', problems: [expect.stringMatching(/^key "nba workflow" holds characters/)] },
      { field: 'nodes[1]._key', problems: [expect.stringMatching(/^key "fetch api" holds characters/)] },
      {
        field: 'edges[2]._key',
        problems: [expect.stringMatching(/makes the document key "nba workflow-…" 263 bytes long/)],
      },
      { field: 'nodeConfigs[0]._key', problems: [expect.stringMatching(/^key "api\/call" holds characters/)] },
    ]);
  });
});
