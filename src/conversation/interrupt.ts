import { ActionConversionResult } from './action-conversion-result';
import { ProposedAction } from './proposed-action';

/** Why a run stopped to wait for a human (docs/protocol.md §3). `question` is reserved for a later feature. */
export type Interrupt =
  | { kind: 'approval'; toolCallId: string; proposedAction: ProposedAction; preview: ActionConversionResult }
  | { kind: 'question'; toolCallId: string; question: string; options?: string[] };
