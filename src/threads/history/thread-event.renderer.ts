import type { ThreadEvent } from '../../conversation/thread-event';

/**
 * How an event is shown to the model:
 *
 *     [SYSTEM] Created 1 node on sheet main
 *       ✓ create_node log-errors: on sheet main
 *       ✗ create_edge e1: node "ghost" does not exist
 */
export function renderThreadEvent(event: ThreadEvent): string {
  const lines = [`[SYSTEM] ${event.summary}`];
  for (const result of event.results) {
    lines.push(`  ${result.ok ? '✓' : '✗'} ${result.label}${result.detail ? `: ${result.detail}` : ''}`);
  }
  return lines.join('\n');
}
