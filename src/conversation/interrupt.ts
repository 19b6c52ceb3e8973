import type { ProposalPreview } from './proposal-preview';
import type { ProposedAction } from './proposed-action';

/** The action a confirm question asks the user to allow (`forAction`). */
export interface ConfirmedAction {
  /** An action kind of the policy. */
  kind: 'create_node' | 'update_node' | 'move_node' | 'delete_node' | 'create_edge' | 'delete_edge' | 'batch';
  /** The node or edge key it concerns; absent: any action of that kind for the rest of the run. */
  target?: string;
}

/**
 * Why a run stopped to wait for a human. `question` is asked by the ask_user tool:
 * `choice` offers `options`, `confirm` is answered yes (approved) or no; a confirm question asked for an action
 * (`forAction`) allows that action once answered yes.
 */
export type Interrupt =
  | { kind: 'approval'; toolCallId: string; proposedAction: ProposedAction; preview: ProposalPreview }
  | {
      kind: 'question';
      toolCallId: string;
      questionKind: 'choice' | 'confirm';
      question: string;
      options?: string[];
      forAction?: ConfirmedAction;
    };
