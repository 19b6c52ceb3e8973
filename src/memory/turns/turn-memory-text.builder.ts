import { ConversationTurn } from './conversation-turn';

/** Tool results are cut to 200 characters in a turn's text. */
export const TOOL_RESULT_MAX_CHARS = 200;
/** The text of a turn is at most 4,000 characters (embedding input, and what summaries read). */
export const TURN_TEXT_MAX_CHARS = 4000;

const USER = 'User: ';
const ASSISTANT = 'Assistant: ';
const TOOLS_USED = 'Tools used:';
const TOOL_LINE = (name: string) => `- ${name}: `;

/**
 * The text of a turn (level 0): the user message, the assistant's answer, then the tools used with
 * their results cut to 200 characters, at most 4,000 characters in all. It is what a level-0
 * record holds and embeds, what recall shows, what level-1 summaries are made from, and its length
 * is the turn's share of the conversation's characters.
 */
export function buildTurnMemoryText(turn: ConversationTurn): string {
  const lines = [USER + turn.userMessage, ASSISTANT + turn.assistantTexts.join('\n')];
  if (turn.tools.length > 0) {
    lines.push(TOOLS_USED);
    for (const tool of turn.tools)
      lines.push(TOOL_LINE(tool.name) + (tool.result ?? '').slice(0, TOOL_RESULT_MAX_CHARS));
  }
  const text = lines.join('\n');
  return text.length <= TURN_TEXT_MAX_CHARS ? text : `${text.slice(0, TURN_TEXT_MAX_CHARS - 1)}…`;
}

/**
 * buildTurnMemoryText(turn).length, without building the text: the request path measures every turn
 * of a long thread on each message, and needs only the lengths.
 */
export function turnMemoryTextLength(turn: ConversationTurn): number {
  const lines = [USER.length + turn.userMessage.length, ASSISTANT.length + joinedLength(turn.assistantTexts)];
  if (turn.tools.length > 0) {
    lines.push(TOOLS_USED.length);
    for (const tool of turn.tools)
      lines.push(TOOL_LINE(tool.name).length + Math.min((tool.result ?? '').length, TOOL_RESULT_MAX_CHARS));
  }
  return Math.min(joinedLength(lines), TURN_TEXT_MAX_CHARS);
}

/** The length of strings (or of strings of the given lengths) joined with "\n". */
function joinedLength(parts: ReadonlyArray<string | number>): number {
  let length = Math.max(0, parts.length - 1);
  for (const part of parts) length += typeof part === 'number' ? part : part.length;
  return length;
}
