import type { ThreadChangeView } from '../protocol';
import type { AIChatMessage } from './ai-chat-message';

/** What the change log says about one message of the chat: what undo and restore can do from it. */
export interface MessageChanges {
  /**
   * The service's message to name in `undo` (an assistant message's changes; or a revert's ACTIONS_REVERTED event,
   * to put back what it reverted), and in `restore` (what the assistant applied after it is reverted).
   */
  messageId: string;
  /** Its changes still in effect (undo reverts them); for a revert's event, the revert itself when still in effect. */
  inEffect: ThreadChangeView[];
  /** How many changes of the assistant in later messages are still in effect: restore from here reverts them. */
  laterInEffect: number;
}

/**
 * The change that carries `change`'s effect now: itself when nothing reverted it, the revert of its revert, and so
 * on; null when its effect is undone (an odd number of reverts). As the service decides it (docs/protocol.md §9.4).
 */
export function inEffect(
  change: ThreadChangeView,
  byId: ReadonlyMap<string, ThreadChangeView>,
): ThreadChangeView | null {
  let current = change;
  let depth = 0;
  while (current.revertedBy) {
    const next = byId.get(current.revertedBy);
    if (!next) break;
    current = next;
    depth += 1;
  }
  return depth % 2 === 0 ? current : null;
}

/** The message of the chat that shows a change: the answer holding its tool call, else the event that records it. */
function shownIn(messages: readonly AIChatMessage[], change: ThreadChangeView): number {
  if (change.toolCallId !== undefined) {
    const id = change.toolCallId;
    return messages.findIndex(
      (message) => message.role === 'assistant' && message.toolCalls?.some((call) => call.toolCallId === id),
    );
  }
  const first = messages.findIndex((message) => message.event?.operationIds?.[0] === change.operationId);
  return first >= 0
    ? first
    : messages.findIndex((message) => message.event?.operationIds?.includes(change.operationId) ?? false);
}

/**
 * The chat's messages that undo or restore can start from, by local message id, read from the thread's change log
 * (GET /api/ai/thread/:threadId/changes): each answer whose proposals applied something, and each revert's event
 * (undoing a revert puts its changes back; a revert of a revert is left to the answer's own undo). A message showing
 * changes of several of the service's messages (an answer of several rounds) names the latest of them.
 */
export function changesByMessage(
  messages: readonly AIChatMessage[],
  changes: readonly ThreadChangeView[],
): Map<string, MessageChanges> {
  const byId = new Map(changes.map((change) => [change.operationId, change]));
  /** The assistant's changes among `list` whose effect is in the graph, each by the change that carries it now. */
  const liveOf = (list: readonly ThreadChangeView[]) => [
    ...new Set(
      list
        .filter((change) => change.actor.via !== 'undo')
        .map((change) => inEffect(change, byId))
        .filter((change): change is ThreadChangeView => change !== null),
    ),
  ];
  const shown = new Map<number, ThreadChangeView[]>();
  for (const change of changes) {
    const index = shownIn(messages, change);
    if (index < 0 || change.messageId === null) continue;
    shown.set(index, [...(shown.get(index) ?? []), change]);
  }
  const ordered = [...shown].sort(([left], [right]) => left - right);
  const liveCounts = ordered.map(([index, list]) => [index, liveOf(list).length] as const);
  const result = new Map<string, MessageChanges>();
  for (const [index, list] of ordered) {
    const message = messages[index];
    const laterInEffect = liveCounts.filter(([at]) => at > index).reduce((sum, [, count]) => sum + count, 0);
    if (message.role === 'assistant') {
      const latest = list.reduce((newest, change) => (change.appliedTime >= newest.appliedTime ? change : newest));
      result.set(message.id, { messageId: latest.messageId!, inEffect: liveOf(list), laterInEffect });
      continue;
    }
    // A revert's event: undone while in effect, when what it reverted were the assistant's own changes.
    const revert = list.find(
      (change) => change.actor.via === 'undo' && message.event?.operationIds?.[0] === change.operationId,
    );
    if (!revert) continue;
    const firstLevel = (revert.reverts ?? []).every((id) => byId.get(id)?.actor.via !== 'undo');
    const live = firstLevel && inEffect(revert, byId) === revert ? [revert] : [];
    result.set(message.id, { messageId: revert.messageId!, inEffect: live, laterInEffect });
  }
  return result;
}
