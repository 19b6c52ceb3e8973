import { RESULT_CUT_NOTE, serializeToolResult } from './tool-result.limiter';

describe(serializeToolResult.name, () => {
  it('returns small results as plain JSON', () => {
    expect(serializeToolResult({ a: 1, list: [1, 2] }, 100)).toBe('{"a":1,"list":[1,2]}');
  });

  it('drops the last items of the largest list and says so, staying valid JSON', () => {
    const result = {
      nodeKey: 'hub',
      nodes: Array.from({ length: 200 }, (_, index) => ({ key: `node-${index}`, type: 'filter' })),
      edges: [{ key: 'e1' }],
    };
    const json = serializeToolResult(result, 2_000);
    expect(json.length).toBeLessThanOrEqual(2_000);
    const parsed = JSON.parse(json);
    expect(parsed.nodeKey).toBe('hub');
    expect(parsed.edges).toEqual([{ key: 'e1' }]);
    expect(parsed.nodes[0]).toEqual({ key: 'node-0', type: 'filter' });
    expect(parsed.nodes.length + parsed._truncated.omittedItems.nodes).toBe(200);
    // Only what must go goes: ~34 characters per item, ~1,700 characters left for the list.
    expect(parsed.nodes.length).toBeGreaterThanOrEqual(40);
    expect(parsed._truncated.note).toMatch(/too long/);
  });

  it('trims nested lists too', () => {
    const result = {
      edges: { incoming: Array.from({ length: 100 }, (_, index) => `in-${index}`), outgoing: ['out-0'] },
    };
    const parsed = JSON.parse(serializeToolResult(result, 400));
    expect(parsed.edges.outgoing).toEqual(['out-0']);
    expect(parsed._truncated.omittedItems['edges.incoming']).toBeGreaterThan(0);
  });

  it('cuts as text when one value alone is too long, and sends that text as a JSON string', () => {
    const json = serializeToolResult({ process: 'x'.repeat(5_000) }, 1_000);
    expect(json.length).toBeLessThanOrEqual(1_000);
    expect(json.length).toBeGreaterThan(900);
    const parsed = JSON.parse(json);
    expect(parsed._truncated.note).toBe(RESULT_CUT_NOTE);
    expect(parsed.partialResult.startsWith('{"process":"xxx')).toBe(true);
  });

  it('counts the escaping of the cut text in the limit', () => {
    const json = serializeToolResult({ process: '"\\n'.repeat(2_000) }, 1_000);
    expect(json.length).toBeLessThanOrEqual(1_000);
    expect(json.length).toBeGreaterThan(900);
    expect(() => JSON.parse(json)).not.toThrow();
  });
});
