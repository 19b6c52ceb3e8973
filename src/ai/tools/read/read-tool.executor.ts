import { AppError } from '../../../errors/app-error';
import type { Locale } from '../../../config/app-config';
import { GraphDataSource } from '../../../graph/graph-data-source';
import { Logger } from '../../../observability/logger';
import { serializeToolResult } from '../tool-result.limiter';
import { ToolResultTexts } from '../tool-result.texts';
import { ReadToolResult } from './read-tool';
import { DEFAULT_READ_TOOL_LIMITS, ReadToolContext, ReadToolLimits } from './read-tool.context';
import { READ_TOOL_REGISTRY } from './read-tool.registry';
import { ToolInputError } from './tool-input.error';

type ToolArguments = Record<string, unknown>;

const logger = new Logger('read-tools');

/**
 * Runs the read tools (READ_TOOL_REGISTRY) for ONE graph of one workspace. `execute` never throws:
 * an unknown tool, malformed JSON, invalid arguments, an unknown node or a store failure all come
 * back as a JSON error result the model can act on. Results are JSON with long fields truncated and
 * a total size cap.
 *
 * The offered schemas say `additionalProperties: false`, but an unknown argument of a read tool is
 * not an error (read tools mutate nothing): it is dropped and named in
 * `ignoredArguments`, so a stray key does not cost the model a round.
 */
export class ReadToolExecutor {
  private readonly context: ReadToolContext;

  constructor(
    dataSource: GraphDataSource,
    readonly graphKey: string,
    limits: Partial<ReadToolLimits> = {},
    locale: Locale = 'en',
  ) {
    this.context = new ReadToolContext(dataSource, graphKey, { ...DEFAULT_READ_TOOL_LIMITS, ...limits }, locale);
  }

  async execute(toolName: string, rawArguments: string): Promise<string> {
    const maxChars = this.context.limits.resultMaxChars;
    const texts = this.context.texts;
    let ignored: ReadToolResult = {};
    try {
      const tool = READ_TOOL_REGISTRY.get(toolName);
      if (!tool)
        throw new ToolInputError(texts.unknownTool(toolName, READ_TOOL_REGISTRY.names), {
          availableTools: [...READ_TOOL_REGISTRY.names],
        });
      const { known, unknown } = splitArguments(parseArguments(rawArguments, texts), tool.argumentNames);
      if (unknown.length > 0) ignored = { ignoredArguments: unknown };
      const result = await tool.run(known, this.context);
      return serializeToolResult({ ...ignored, ...result }, maxChars, texts);
    } catch (error) {
      return serializeToolResult({ ...this.errorResult(toolName, error), ...ignored }, maxChars, texts);
    }
  }

  private errorResult(toolName: string, error: unknown): ReadToolResult {
    if (error instanceof ToolInputError) return { error: error.message, tool: toolName, ...error.extra };
    if (error instanceof AppError && error.code === 'not_found') return { error: error.message, tool: toolName };
    logger.warn('read_tool_failed', {
      toolName,
      graphKey: this.graphKey,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    return { error: this.context.texts.readFailed(toolName), tool: toolName };
  }
}

function parseArguments(raw: string, texts: ToolResultTexts): ToolArguments {
  // Models send "" (or nothing) for a tool without parameters.
  if (raw === undefined || raw === null || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new ToolInputError(texts.argumentsNotJson(error instanceof Error ? error.message : 'parse error'));
  }
  if (!isJsonObject(parsed)) throw new ToolInputError(texts.argumentsNotObject);
  return parsed;
}

function isJsonObject(value: unknown): value is ToolArguments {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The arguments the tool's schema declares, and the names of the others. */
function splitArguments(
  args: ToolArguments,
  declared: ReadonlySet<string>,
): { known: ToolArguments; unknown: string[] } {
  const known: ToolArguments = {};
  const unknown: string[] = [];
  for (const [name, value] of Object.entries(args)) {
    if (declared.has(name)) known[name] = value;
    else unknown.push(name);
  }
  return { known, unknown };
}
