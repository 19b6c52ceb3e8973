import { ProposedAction } from '../../conversation/proposed-action';

/**
 * What the loop does with one tool call, decided in one place (AgentToolbox.route):
 *   read    → executed at once, its result goes back to the model;
 *   propose → a valid write call: the run stops for a human's approval;
 *   error   → refused (malformed JSON, invalid arguments, unknown or not offered tool): the model
 *             gets an error tool result it can correct; the user never sees an interrupt for it.
 * (A later action policy adds "apply without asking" and "forbidden" here, not in the loop.)
 */
export type ToolRoute =
  | { kind: 'read'; name: string; rawArguments: string }
  | { kind: 'propose'; name: string; action: ProposedAction }
  | {
      kind: 'error';
      name: string;
      message: string;
      /** The arguments were not JSON (logged as malformed_json). */
      malformed: boolean;
      /** A read tool: announced with tool_start/tool_result like a successful read. */
      announce: boolean;
    };
