import type { ProposalPreview } from './proposal-preview';
import type { ProposedAction } from './proposed-action';

/** The action a confirm question asks the user to allow (`forAction`). */
export interface ConfirmedAction {
  /** An action kind of the policy. */
  kind: 'create_node' | 'update_node' | 'move_node' | 'delete_node' | 'create_edge' | 'delete_edge' | 'batch';
  /** The node or edge key it concerns; absent: any action of that kind for the rest of the run. */
  target?: string;
}

/** What sending a prompt is estimated to cost: its tokens, and their price when the provider's is known. */
export interface PromptEstimate {
  tokens: number;
  costUsd: number | null;
}

/**
 * Why a run stopped to wait for a human. `question` is asked by the ask_user tool:
 * `choice` offers `options`, `confirm` is answered yes (approved) or no; a confirm question asked for an action
 * (`forAction`) allows that action once answered yes. A confirm question with an `estimate` is the service's own,
 * asked before sending a prompt larger than the configured limit (docs/protocol.md §9.6): no tool call of the model.
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
      estimate?: PromptEstimate;
    };
