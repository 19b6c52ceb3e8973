import { LlmToolDefinition } from '../../../conversation/llm-message';
import { describeViolations, JsonSchemaValidator } from '../json-schema.validator';
import { conforms, ToolParameters } from '../tool-parameters';
import { ReadToolContext } from './read-tool.context';
import { ToolInputError } from './tool-input.error';

/** A read tool's answer: a JSON object, serialized and capped by the executor. */
export type ReadToolResult = Record<string, unknown>;

/** What one read tool file declares: its name, what the model is told, its argument schema, and how a valid call runs. */
export interface ReadToolSpec<Name extends string, Args extends object> {
  name: Name;
  description: string;
  parameters: ToolParameters<Args>;
  /** Runs a call whose arguments passed `parameters`; throws ToolInputError for what the model can correct. */
  execute(args: Args, context: ReadToolContext): Promise<ReadToolResult>;
}

/** A read tool as the registry and the executor see it (its argument type stays inside `run`). */
export interface ReadTool<Name extends string = string> {
  readonly name: Name;
  readonly definition: LlmToolDefinition;
  /** The arguments its schema declares; the executor drops the others. */
  readonly argumentNames: ReadonlySet<string>;
  /** Validates the declared arguments, then executes; throws ToolInputError for invalid arguments. */
  run(args: Record<string, unknown>, context: ReadToolContext): Promise<ReadToolResult>;
}

/**
 * `defineReadTool<Args>()({ name, description, parameters, execute })`: Args, the type of the
 * arguments, is given first, so the compiler checks `parameters` against it (ToolParameters) and
 * types `execute`'s arguments with it; the tool's name is inferred from the spec.
 */
export function defineReadTool<Args extends object>(): <Name extends string>(
  spec: ReadToolSpec<Name, Args>,
) => ReadTool<Name> {
  return (spec) => toReadTool(spec);
}

function toReadTool<Name extends string, Args extends object>(spec: ReadToolSpec<Name, Args>): ReadTool<Name> {
  // The schema shown to the model says additionalProperties: false; unknown arguments of a read tool
  // are dropped before validation instead (ReadToolExecutor), so they are not violations here.
  const validator = new JsonSchemaValidator({ ...spec.parameters, additionalProperties: true });
  return {
    name: spec.name,
    definition: {
      type: 'function',
      function: { name: spec.name, description: spec.description, parameters: spec.parameters },
    },
    argumentNames: new Set(Object.keys(spec.parameters.properties)),
    run: async (args, context) => {
      const violations = validator.validate(args);
      if (!conforms<Args>(args, violations)) {
        throw new ToolInputError(`Invalid arguments for ${spec.name}: ${describeViolations(violations)}`, {
          problems: violations,
        });
      }
      return spec.execute(args, context);
    },
  };
}
