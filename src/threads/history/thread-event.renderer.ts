import type { ThreadEvent } from '../../conversation/thread-event';

/**
 * How an event is shown to the model:
 *
 *     [SYSTEM] Created 1 node on sheet main
 *       ✓ create_node log-errors: on sheet main
 *       ✗ create_edge e1: node "ghost" does not exist
 */
export function renderThreadEvent(event: ThreadEvent): string {
  const lines = [`[SYSTEM] ${inLine(event.summary)}`];
  for (const result of event.results) {
    lines.push(
      `  ${result.ok ? '✓' : '✗'} ${inLine(result.label)}${result.detail ? `: ${inLine(result.detail)}` : ''}`,
    );
  }
  return lines.join('\n');
}

// eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
const LINE_BREAKING = /[\u0000-\u001f\u007f\u2028\u2029]/g;
const SYSTEM_MARKER = /\[\s*system\s*\]/gi;
const ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A text inside a system line: parts of an event can come from users and graphs (names, keys, values), and must stay
 * data, never start a line of their own or pass for a system note: control characters and line
 * separators are escaped (a newline shows as \n, others as \u and four hex digits), and a "[SYSTEM]" marker is shown in parentheses.
 */
function inLine(text: string): string {
  return text
    .replace(
      LINE_BREAKING,
      (character) => ESCAPES[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
    .replace(SYSTEM_MARKER, (marker) => `(${marker.slice(1, -1)})`);
}
