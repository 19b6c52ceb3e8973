import { ConversationTurn } from './conversation-turn';

/** Tool results are cut to 200 characters in a turn's text. */
export const TOOL_RESULT_MAX_CHARS = 200;
/** The text of a turn is at most 4,000 characters (embedding input, and what summaries read). */
export const TURN_TEXT_MAX_CHARS = 4000;

/**
 * The text of a turn (docs/memory.md, level 0): the user message, the
 * assistant's answer, then the tools used with their results cut to 200 characters, at most 4,000
 * characters in all. It is what a level-0 record holds and embeds, what recall shows, what level-1
 * summaries are made from, and its length is the turn's share of the conversation's characters.
 */
export function buildTurnMemoryText(turn: ConversationTurn): string {
  const parts = [`User: ${turn.userMessage}`, `Assistant: ${turn.assistantTexts.join('\n')}`];
  if (turn.tools.length > 0) {
    parts.push('Tools used:');
    for (const tool of turn.tools) parts.push(`- ${tool.name}: ${(tool.result ?? '').slice(0, TOOL_RESULT_MAX_CHARS)}`);
  }
  const text = parts.join('\n');
  return text.length <= TURN_TEXT_MAX_CHARS ? text : `${text.slice(0, TURN_TEXT_MAX_CHARS - 1)}…`;
}
