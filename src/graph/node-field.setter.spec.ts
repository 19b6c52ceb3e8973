import { AppError } from '../errors/app-error';
import { GraphNode } from './graph.types';
import { setNodeField } from './node-field.setter';

describe(setNodeField.name, () => {
  const node: GraphNode = {
    _key: 'n',
    graphKey: 'g',
    type: 't',
    sheet: '0',
    posX: 1,
    posY: 2,
    data: { a: { keep: true }, list: [1, 2] },
  };

  it('sets a top-level field without touching the original', () => {
    const moved = setNodeField(node, ['posX'], 50);
    expect(moved.posX).toBe(50);
    expect(node.posX).toBe(1);
  });

  it('creates intermediate objects for nested paths and keeps siblings', () => {
    const updated = setNodeField(node, ['data', 'a', 'b', 'c'], 'deep');
    expect(updated.data).toEqual({ a: { keep: true, b: { c: 'deep' } }, list: [1, 2] });
    expect(node.data).toEqual({ a: { keep: true }, list: [1, 2] });
  });

  it('replaces a non-object intermediate value and indexes arrays', () => {
    expect(setNodeField({ ...node, data: 'text' }, ['data', 'x'], 1).data).toEqual({ x: 1 });
    expect((setNodeField(node, ['data', 'list', '1'], 9).data as { list: number[] }).list).toEqual([1, 9]);
  });

  it('refuses identity, embedding and prototype paths, and an empty path', () => {
    for (const path of [
      ['_key'],
      ['graphKey'],
      ['embedding'],
      ['embeddingModel'],
      ['data', '__proto__', 'x'],
      ['constructor'],
      [],
    ]) {
      expect(() => setNodeField(node, path, 'x')).toThrow(AppError);
    }
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
