/** A tool the model called during a turn, with what it returned (null when no result was stored). */
export interface TurnToolUse {
  name: string;
  arguments: string;
  result: string | null;
}

/**
 * One turn of a conversation (memory level 0): a user message and everything up to the next one — the
 * assistant's answers, its tool calls and their results. System messages (prompt, contexts) are not
 * part of it.
 */
export interface ConversationTurn {
  /** The id of the turn's user message (stable: a turn's memory record is keyed on it). */
  turnId: string;
  createdTime: number;
  userMessage: string;
  assistantTexts: string[];
  tools: TurnToolUse[];
  /** Nothing more will be added to it: a later turn exists, or its last message is a final answer. */
  closed: boolean;
}
