import { nbaWorkflowDemo } from './demo/nba-workflow.demo';
import { GraphNode } from './graph.types';
import { hasNodeContentChanged } from './node-content';

describe(hasNodeContentChanged.name, () => {
  const original: GraphNode = structuredClone(
    nbaWorkflowDemo.nodes.find((node) => node._key === 'fetch-api') as GraphNode,
  );

  it('ignores moves and resizes', () => {
    expect(hasNodeContentChanged(original, { ...original, posX: 9999, posY: -5, size: { width: 1, height: 1 } })).toBe(
      false,
    );
  });

  it('ignores key order inside data and handles', () => {
    const reordered = { ...original, data: Object.fromEntries(Object.entries(original.data as object).reverse()) };
    expect(hasNodeContentChanged(original, reordered)).toBe(false);
  });

  it('detects a changed type, process, data value or handle', () => {
    expect(hasNodeContentChanged(original, { ...original, type: 'http' })).toBe(true);
    expect(hasNodeContentChanged(original, { ...original, process: `${original.process}\n// more` })).toBe(true);
    expect(hasNodeContentChanged(original, { ...original, data: { ...(original.data as object), timeoutMs: 1 } })).toBe(
      true,
    );
    const handles = structuredClone(original.handles!);
    handles.R!.point[1].accept = 'string';
    expect(hasNodeContentChanged(original, { ...original, handles })).toBe(true);
  });

  it('treats a missing field like undefined and an array order change as a change', () => {
    const bare: GraphNode = { _key: 'n', graphKey: 'g', type: 't', sheet: '0', posX: 0, posY: 0 };
    expect(hasNodeContentChanged(bare, { ...bare, data: undefined })).toBe(false);
    expect(hasNodeContentChanged(bare, { ...bare, data: null })).toBe(true);
    expect(hasNodeContentChanged({ ...bare, data: [1, 2] }, { ...bare, data: [2, 1] })).toBe(true);
    expect(hasNodeContentChanged({ ...bare, data: { a: 1 } }, { ...bare, data: { a: 1, b: undefined } })).toBe(false);
  });
});
