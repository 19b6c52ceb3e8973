import type { ThreadEvent, ThreadEventResult } from '../../conversation/thread-event';
import type { ActionConversionResult } from '../../conversation/action-conversion-result';
import { joinWords, plural } from './event-wording';

/** One proposal of a series: its change set, and why it could not be applied (absent: it was). */
export interface ExecutedAction {
  preview: ActionConversionResult;
  error?: string;
}

export interface ExecutedActionSeries {
  /** server: this service applied it; client: it was sent to the user's editor, which applies it (HITL_APPLY=client). */
  appliedBy: 'server' | 'client';
  /** The graph's sheets list (id → name), to name sheets as users see them. */
  sheetNames: Readonly<Record<string, string>>;
  actions: readonly ExecutedAction[];
  /** The operations the series recorded, listed on the event. */
  operationIds?: readonly string[];
  /** Says the series was applied before the service was interrupted (a crash between the apply and the commit). */
  recovered?: boolean;
}

type Verb = 'create' | 'update' | 'move' | 'delete';
type Noun = 'node' | 'edge';

interface Item {
  verb: Verb;
  noun: Noun;
  key: string;
  detail?: string;
  error?: string;
}

const PAST: Record<Verb, string> = { create: 'created', update: 'updated', move: 'moved', delete: 'deleted' };
const VERB_ORDER: readonly Verb[] = ['create', 'update', 'move', 'delete'];

/**
 * The ACTIONS_EXECUTED event of one applied series: an approved proposal, or the
 * autonomous proposals of one round. One result per node or edge touched, failed ones `ok: false`
 * with the reason; the summary counts what was done, e.g. "Created 2 nodes and 1 edge on sheet main".
 */
export function actionsExecutedEvent(series: ExecutedActionSeries): ThreadEvent {
  const items = series.actions.flatMap((action) => itemsOf(action));
  const done = items.filter((item) => item.error === undefined);
  const failed = items.length - done.length;
  const sheets = [
    ...new Set(series.actions.map((action) => series.sheetNames[action.preview.sheetId] ?? action.preview.sheetId)),
  ];
  const where = sheets.length === 0 ? '' : ` on sheet${sheets.length > 1 ? 's' : ''} ${joinWords(sheets)}`;

  let summary: string;
  if (done.length === 0) {
    summary = `Nothing applied: ${plural(failed, 'change')} failed${where}`;
  } else {
    summary =
      series.appliedBy === 'server'
        ? `${capitalize(describeCounts(done, 'past'))}${where}`
        : `Sent to the editor to apply: ${describeCounts(done, 'base')}${where}`;
    if (failed > 0) summary += `; ${plural(failed, 'change')} failed`;
  }
  if (series.recovered)
    summary = `Applied before an interruption of the service: ${summary.charAt(0).toLowerCase()}${summary.slice(1)}`;
  const results: ThreadEventResult[] = items.map((item) => ({
    ok: item.error === undefined,
    label: `${item.verb}_${item.noun} ${item.key}`,
    ...(item.error !== undefined ? { detail: item.error } : item.detail ? { detail: item.detail } : {}),
  }));
  return {
    type: 'ACTIONS_EXECUTED',
    summary,
    results,
    ...(series.operationIds && series.operationIds.length > 0 ? { operationIds: [...series.operationIds] } : {}),
  };
}

function itemsOf(action: ExecutedAction): Item[] {
  const { preview, error } = action;
  const items: Item[] = [];
  for (const node of preview.nodesToCreate)
    items.push({ verb: 'create', noun: 'node', key: node._key, detail: `type ${node.type}` });
  for (const edge of preview.edgesToCreate) {
    items.push({
      verb: 'create',
      noun: 'edge',
      key: edge._key,
      detail: `${edge.source}:${edge.sourceHandle} → ${edge.target}:${edge.targetHandle}`,
    });
  }
  const paths = new Map<string, string[]>();
  for (const instruction of preview.instructions) {
    const list = paths.get(instruction.nodeKey) ?? [];
    list.push(instruction.path.join('.'));
    paths.set(instruction.nodeKey, list);
  }
  for (const [key, changed] of paths) {
    const moved = changed.every((path) => path === 'posX' || path === 'posY');
    items.push(
      moved ? { verb: 'move', noun: 'node', key } : { verb: 'update', noun: 'node', key, detail: changed.join(', ') },
    );
  }
  for (const key of preview.nodeKeysToDelete) items.push({ verb: 'delete', noun: 'node', key });
  for (const key of preview.edgeKeysToDelete) items.push({ verb: 'delete', noun: 'edge', key });
  return error === undefined ? items : items.map((item) => ({ ...item, error }));
}

/** "created 2 nodes and 1 edge, deleted 1 node" (past), or "create 2 nodes and 1 edge, delete 1 node" (base). */
function describeCounts(items: Item[], form: 'past' | 'base'): string {
  const parts: string[] = [];
  for (const verb of VERB_ORDER) {
    const nouns: string[] = [];
    for (const noun of ['node', 'edge'] as const) {
      const count = items.filter((item) => item.verb === verb && item.noun === noun).length;
      if (count > 0) nouns.push(plural(count, noun));
    }
    if (nouns.length > 0) parts.push(`${form === 'past' ? PAST[verb] : verb} ${nouns.join(' and ')}`);
  }
  return parts.join(', ');
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
