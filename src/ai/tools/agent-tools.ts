import { LlmToolCall, LlmToolDefinition } from '../../conversation/llm-message';
import { ToolRoute } from './tool-route';

/** The tools of one run, as the agent loop sees them (AgentToolbox implements it). */
export interface AgentTools {
  /** Offered to the model (by role). Empty: calls are made without tools. */
  readonly definitions: readonly LlmToolDefinition[];
  /** The one decision per tool call: execute, interrupt, or refuse. */
  route(call: LlmToolCall): ToolRoute;
  /** The model's next reply is about to be processed: the user's yeses given since the last one take effect. */
  beginReply(): void;
  /** Runs a read tool; never throws (errors come back as the result text). */
  executeRead(name: string, rawArguments: string): Promise<string>;
}
