import { ProposedAction } from '../../conversation/proposed-action';
import { UserQuestion } from './ask-user.tool';

/**
 * What the loop does with one tool call, decided in one place (AgentToolbox.route, with the run's
 * action policy for write calls):
 *   read    → executed at once, its result goes back to the model;
 *   propose → a valid write call the policy sends for approval: the run stops for a human;
 *   apply   → a valid write call the policy lets through (autonomous, or ask_first after a yes):
 *             checked, then applied without a human;
 *   ask     → a valid ask_user call: the run stops for the user's answer;
 *   error   → refused (malformed JSON, invalid arguments, unknown or not offered tool, forbidden by the
 *             policy, ask_first without a yes): the model gets an error tool result it can act on; the
 *             user never sees an interrupt for it.
 */
export type ToolRoute =
  | { kind: 'read'; name: string; rawArguments: string }
  | { kind: 'propose'; name: string; action: ProposedAction }
  | { kind: 'apply'; name: string; action: ProposedAction; via: 'autonomous' | 'ask_first' }
  | { kind: 'ask'; name: string; question: UserQuestion }
  | {
      kind: 'error';
      name: string;
      message: string;
      /** The arguments were not JSON (logged as malformed_json). */
      malformed: boolean;
      /** A read tool: announced with tool_start/tool_result like a successful read. */
      announce: boolean;
      /** A valid write call the action policy refused: forbidden, or ask_first without the user's yes. */
      refusedBy?: 'forbidden' | 'ask_first';
    };
