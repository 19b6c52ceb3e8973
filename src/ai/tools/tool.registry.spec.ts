import { ToolRegistry } from './tool.registry';

const tool = (name: string) => ({
  name,
  definition: { type: 'function' as const, function: { name, description: `${name} tool`, parameters: {} } },
});

describe(ToolRegistry.name, () => {
  it('offers the definitions in the order of its tools and finds a tool by name', () => {
    const registry = new ToolRegistry([tool('b'), tool('a')]);
    expect(registry.names).toEqual(['b', 'a']);
    expect(registry.definitions.map((definition) => definition.function.name)).toEqual(['b', 'a']);
    expect(registry.get('a')?.name).toBe('a');
    expect(registry.has('b')).toBe(true);
    expect(registry.get('c')).toBeUndefined();
    expect(registry.has('constructor')).toBe(false);
  });

  it('refuses two tools with one name', () => {
    expect(() => new ToolRegistry([tool('a'), tool('a')])).toThrow(/share a name/);
  });
});
