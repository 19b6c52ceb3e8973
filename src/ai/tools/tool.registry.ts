import { LlmToolDefinition } from '../../conversation/llm-message';

/** What the registry needs of a tool: its name, and its definition as the model is shown it. */
export interface RegisteredTool<Name extends string = string> {
  readonly name: Name;
  readonly definition: LlmToolDefinition;
}

/**
 * A family of tools, each defined in its own file (name, description, argument schema, typed
 * handler) and collected here: the definitions offered to the model, in order, and the lookup of a
 * call by name. No switch: a new tool is one more file and one more entry.
 */
export class ToolRegistry<Tool extends RegisteredTool> {
  readonly names: readonly Tool['name'][];
  readonly definitions: readonly LlmToolDefinition[];
  private readonly byName: ReadonlyMap<string, Tool>;

  constructor(readonly tools: readonly Tool[]) {
    this.byName = new Map(tools.map((tool) => [tool.name, tool]));
    if (this.byName.size !== tools.length)
      throw new Error(`Two tools share a name in ${tools.map((tool) => tool.name).join(', ')}`);
    this.names = Object.freeze(tools.map((tool) => tool.name));
    this.definitions = Object.freeze(tools.map((tool) => tool.definition));
  }

  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  has(name: string): name is Tool['name'] {
    return this.byName.has(name);
  }
}
