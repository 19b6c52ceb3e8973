import type { ActionConversionResult } from './action-conversion-result';
import type { ProposedAction } from './proposed-action';

/**
 * Why a run stopped to wait for a human. `question` is asked by the ask_user
 * tool: `choice` offers `options`, `confirm` is answered yes (approved) or no.
 */
export type Interrupt =
  | { kind: 'approval'; toolCallId: string; proposedAction: ProposedAction; preview: ActionConversionResult }
  | { kind: 'question'; toolCallId: string; questionKind: 'choice' | 'confirm'; question: string; options?: string[] };
