import type { Locale } from '../../config/app-config';
import { LlmToolCall, LlmToolDefinition } from '../../conversation/llm-message';
import { AgentTools } from './agent-tools';
import { READ_TOOL_REGISTRY } from './read/read-tool.registry';
import { toolResultTexts, ToolResultTexts } from './tool-result.texts';
import { ToolRoute } from './tool-route';
import { WRITE_TOOL_DEFINITIONS } from './write-tool.definitions';
import { isWriteTool, WRITE_TOOL_NAMES } from './write-tool-name';
import { parseWriteToolCall } from './write-tool.parser';

/** The read side the toolbox delegates to (ReadToolExecutor: never throws). */
export interface ReadToolRunner {
  execute(toolName: string, rawArguments: string): Promise<string>;
}

export interface AgentToolboxOptions {
  /** editor/admin: the write (propose_*) tools are offered too (docs/protocol.md §1). */
  canPropose: boolean;
  readTools: ReadToolRunner;
  /** False for a provider that cannot call tools (offline): nothing is offered. */
  toolsSupported?: boolean;
  /** AI_LOCALE: the language of the errors the model is told. */
  locale?: Locale;
}

/**
 * The tools of one run, and THE place that decides what each tool call becomes (offer / execute /
 * interrupt / refuse). Viewers are offered the 7 read tools; editors and admins also the 7 write
 * tools. A write call from someone who was not offered it is refused like an unknown tool.
 */
export class AgentToolbox implements AgentTools {
  readonly definitions: readonly LlmToolDefinition[];
  private readonly texts: ToolResultTexts;

  constructor(private readonly options: AgentToolboxOptions) {
    this.texts = toolResultTexts(options.locale);
    this.definitions =
      options.toolsSupported === false
        ? []
        : options.canPropose
          ? [...READ_TOOL_REGISTRY.definitions, ...WRITE_TOOL_DEFINITIONS]
          : [...READ_TOOL_REGISTRY.definitions];
  }

  route(call: LlmToolCall): ToolRoute {
    const name = call.function.name;
    const raw = call.function.arguments;
    if (READ_TOOL_REGISTRY.has(name)) {
      const parsed = parseJsonArguments(raw, this.texts);
      if (!parsed.ok) return { kind: 'error', name, message: parsed.error, malformed: parsed.malformed, announce: true };
      return { kind: 'read', name, rawArguments: raw };
    }
    if (isWriteTool(name) && this.options.canPropose) {
      const parsed = parseJsonArguments(raw, this.texts);
      if (!parsed.ok) return { kind: 'error', name, message: parsed.error, malformed: parsed.malformed, announce: false };
      const result = parseWriteToolCall(name, parsed.value);
      if (!result.ok) return { kind: 'error', name, message: result.error, malformed: false, announce: false };
      return { kind: 'propose', name, action: result.action };
    }
    const available = this.options.canPropose ? [...READ_TOOL_REGISTRY.names, ...WRITE_TOOL_NAMES] : [...READ_TOOL_REGISTRY.names];
    const message = isWriteTool(name) ? this.texts.readOnlyUser(name) : this.texts.unknownTool(name, available);
    return { kind: 'error', name, message, malformed: false, announce: false };
  }

  executeRead(name: string, rawArguments: string): Promise<string> {
    return this.options.readTools.execute(name, rawArguments);
  }
}

function parseJsonArguments(raw: string, texts: ToolResultTexts): { ok: true; value: unknown } | { ok: false; error: string; malformed: boolean } {
  // Models send "" for a call without arguments.
  if (raw === undefined || raw === null || raw.trim() === '') return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(raw);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return { ok: false, error: texts.argumentsNotObject, malformed: false };
    }
    return { ok: true, value };
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'parse error';
    return { ok: false, error: texts.argumentsNotJson(reason), malformed: true };
  }
}
