import { nbaWorkflowDemo } from '../graph/demo/nba-workflow.demo';
import { NodeHandles } from '../graph/graph.types';
import { formatHandles, summarizeHandles } from './handle-summary';

const fetchApi = nbaWorkflowDemo.nodes.find((node) => node._key === 'fetch-api');

describe(summarizeHandles.name, () => {
  it('keeps side, id, direction and accepted type of every point, in document order', () => {
    expect(summarizeHandles(fetchApi?.handles)).toEqual([
      { side: 'L', points: [{ id: 'L-0', type: 'in', accept: 'any' }] },
      {
        side: 'R',
        points: [
          { id: 'R-0', type: 'out', accept: 'object' },
          { id: 'R-1', type: 'out', accept: 'error' },
        ],
      },
    ]);
  });

  it('is empty for a node without handles', () => {
    expect(summarizeHandles(undefined)).toEqual([]);
    expect(summarizeHandles(null)).toEqual([]);
    expect(summarizeHandles({})).toEqual([]);
  });

  it('skips malformed groups and points instead of failing on stored documents', () => {
    const handles = {
      T: { position: 'fix' },
      D: { position: 'fix', point: [{ id: 'D-0', type: 'sideways', accept: 'any' }] },
      L: { position: 'fix', point: [null, { id: 'L-0', type: 'in' }] },
    } as unknown as NodeHandles;
    expect(summarizeHandles(handles)).toEqual([{ side: 'L', points: [{ id: 'L-0', type: 'in', accept: 'any' }] }]);
  });
});

describe(formatHandles.name, () => {
  it('formats side:type(accept) for the model', () => {
    expect(formatHandles(summarizeHandles(fetchApi?.handles))).toBe('L:in(any), R:out(object), R:out(error)');
    expect(
      formatHandles([
        { side: 'R', points: [{ id: 'R-0', type: 'out', accept: 'any' }] },
        { side: 'L', points: [{ id: 'L-0', type: 'in', accept: 'string' }] },
      ]),
    ).toBe('R:out(any), L:in(string)');
    expect(formatHandles([])).toBe('');
  });

  it('adds the point ids on request', () => {
    expect(formatHandles(summarizeHandles(fetchApi?.handles), { withIds: true })).toBe(
      'L:in(any)#L-0, R:out(object)#R-0, R:out(error)#R-1',
    );
  });
});
