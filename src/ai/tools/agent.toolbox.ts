import type { Locale } from '../../config/app-config';
import { LlmToolCall, LlmToolDefinition } from '../../conversation/llm-message';
import { RunAuthority } from '../authority/run-authority';
import { AgentTools } from './agent-tools';
import { ASK_USER_TOOL, parseAskUserCall } from './ask-user.tool';
import { READ_TOOL_REGISTRY } from './read/read-tool.registry';
import { toolResultTexts, ToolResultTexts } from './tool-result.texts';
import { ToolRoute } from './tool-route';
import { isWriteTool } from './write-tool-name';
import { offeredWriteTools } from './write-tool.offer';
import { parseWriteToolCall } from './write-tool.parser';

/** The read side the toolbox delegates to (ReadToolExecutor: never throws). */
export interface ReadToolRunner {
  execute(toolName: string, rawArguments: string): Promise<string>;
}

export interface AgentToolboxOptions {
  /**
   * Who may change what in the run: whether write tools are offered at all (editors and admins),
   * which kinds, and what becomes of each proposal.
   */
  authority: RunAuthority;
  readTools: ReadToolRunner;
  /** False for a provider that cannot call tools (offline): nothing is offered. */
  toolsSupported?: boolean;
  /** AI_LOCALE: the language of the errors the model is told. */
  locale?: Locale;
}

/**
 * The tools of one run, and THE place that decides what each tool call becomes (offer / execute /
 * interrupt / apply / ask / refuse). Everyone is offered the 7 read tools and ask_user; editors and
 * admins also the write tools their action policy does not forbid. A write call is validated, then
 * the run's authority (RunAuthority) says whether it interrupts for approval, is applied, or is refused; a
 * write call from someone who was not offered it is refused like an unknown tool.
 */
export class AgentToolbox implements AgentTools {
  readonly definitions: readonly LlmToolDefinition[];
  private readonly available: readonly string[];
  private readonly texts: ToolResultTexts;

  constructor(private readonly options: AgentToolboxOptions) {
    this.texts = toolResultTexts(options.locale);
    const offered = [
      ...READ_TOOL_REGISTRY.definitions,
      ...offeredWriteTools(options.authority),
      ASK_USER_TOOL.definition,
    ];
    this.definitions = options.toolsSupported === false ? [] : offered;
    this.available = offered.map((definition) => definition.function.name);
  }

  route(call: LlmToolCall): ToolRoute {
    const name = call.function.name;
    const raw = call.function.arguments;
    if (READ_TOOL_REGISTRY.has(name)) {
      const parsed = parseJsonArguments(raw, this.texts);
      if (!parsed.ok)
        return { kind: 'error', name, message: parsed.error, malformed: parsed.malformed, announce: true };
      return { kind: 'read', name, rawArguments: raw };
    }
    if (name === ASK_USER_TOOL.name) {
      const parsed = parseJsonArguments(raw, this.texts);
      if (!parsed.ok)
        return { kind: 'error', name, message: parsed.error, malformed: parsed.malformed, announce: false };
      const result = parseAskUserCall(parsed.value);
      if (!result.ok) return { kind: 'error', name, message: result.error, malformed: false, announce: false };
      return { kind: 'ask', name, question: result.question };
    }
    const { authority } = this.options;
    if (isWriteTool(name) && authority.canPropose) {
      const parsed = parseJsonArguments(raw, this.texts);
      if (!parsed.ok)
        return { kind: 'error', name, message: parsed.error, malformed: parsed.malformed, announce: false };
      const result = parseWriteToolCall(name, parsed.value);
      if (!result.ok) return { kind: 'error', name, message: result.error, malformed: false, announce: false };
      const decision = authority.decide(result.action);
      switch (decision.outcome) {
        case 'refuse':
          return {
            kind: 'error',
            name,
            message: decision.message,
            malformed: false,
            announce: false,
            refusedBy: decision.level,
          };
        case 'interrupt':
          return { kind: 'propose', name, action: result.action };
        case 'apply':
          return { kind: 'apply', name, action: result.action, via: decision.via };
      }
    }
    const message = isWriteTool(name) ? this.texts.readOnlyUser(name) : this.texts.unknownTool(name, this.available);
    return { kind: 'error', name, message, malformed: false, announce: false };
  }

  beginReply(): void {
    this.options.authority.beginReply();
  }

  executeRead(name: string, rawArguments: string): Promise<string> {
    return this.options.readTools.execute(name, rawArguments);
  }
}

function parseJsonArguments(
  raw: string,
  texts: ToolResultTexts,
): { ok: true; value: object } | { ok: false; error: string; malformed: boolean } {
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
