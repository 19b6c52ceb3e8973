import { findJsonShapeProblem, JSON_MAX_DEPTH } from './json-shape.checker';

describe(findJsonShapeProblem.name, () => {
  const nested = (levels: number): unknown => JSON.parse(`${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`);

  it('accepts values up to the depth limit and refuses one level more, naming where', () => {
    expect(findJsonShapeProblem(nested(JSON_MAX_DEPTH))).toBeNull();
    expect(findJsonShapeProblem(nested(JSON_MAX_DEPTH + 1))).toEqual({
      field: Array(JSON_MAX_DEPTH).fill('a').join('.'),
      problems: [`nesting deeper than ${JSON_MAX_DEPTH} levels`],
    });
  });

  it('counts arrays as levels and walks a 100,000-level value without recursion', () => {
    expect(findJsonShapeProblem([[[1]]], 3)).toBeNull();
    expect(findJsonShapeProblem([[[[1]]]], 3)).toEqual({ field: '0.0.0', problems: ['nesting deeper than 3 levels'] });
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(findJsonShapeProblem(deep)?.problems).toEqual([`nesting deeper than ${JSON_MAX_DEPTH} levels`]);
  });

  it.each([
    ['{"__proto__":{"admin":true}}', '__proto__'],
    ['{"a":[{"b":1},{"constructor":{"prototype":{}}}]}', 'a.1.constructor'],
    ['{"data":{"ok":1,"__proto__":null}}', 'data.__proto__'],
  ])('refuses the prototype keys of %s wherever they are', (json, field) => {
    const key = field.split('.').pop();
    expect(findJsonShapeProblem(JSON.parse(json))).toEqual({ field, problems: [`property ${key} should not exist`] });
  });

  it('accepts primitives, empty containers and keys that merely contain the words', () => {
    for (const value of [null, 1, 'x', [], {}, { prototype: 1, constructorName: 'x', proto: {} }])
      expect(findJsonShapeProblem(value)).toBeNull();
  });

  it('cuts a long reported path', () => {
    const key = 'k'.repeat(300);
    expect(findJsonShapeProblem(JSON.parse(`{"${key}":{"constructor":1}}`))?.field).toBe(`${key.slice(0, 200)}…`);
  });
});
