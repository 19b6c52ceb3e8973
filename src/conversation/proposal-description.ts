import type { GraphEdge, GraphNode } from '../graph/graph.types';
import type { NodeFieldInstruction } from '../graph/graph-change-set';
import type { ActionConversionResult } from './action-conversion-result';
import type { Interrupt } from './interrupt';
import type { ProposedAction } from './proposed-action';

/**
 * The wording of proposals, shared by the service (each batch item's one-line description in a preview,
 *) and the client package (the approval dialog, the terminal chat), which imports this file
 * through client/src/protocol.ts. Pure: no import but types, no Node or DOM API, so the browser bundle takes it as is.
 */

type ApprovalInterrupt = Extract<Interrupt, { kind: 'approval' }>;

/** One change of a proposal, in words. */
export interface ChangeItem {
  effect: 'create' | 'update' | 'move' | 'delete';
  subject: 'node' | 'edge';
  key: string;
  /** One line: what happens to it. */
  summary: string;
  /** Further lines: fields, values, an excerpt of code. */
  details: string[];
}

/** A proposal as a person reads it: what will be created, changed or deleted, and on which sheet. */
export interface ProposalDescription {
  title: string;
  /** e.g. "Creates 1 node and 1 edge on sheet main". */
  headline: string;
  reason: string;
  sheet: { id: string; name?: string };
  changes: ChangeItem[];
}

const VALUE_MAX_CHARS = 120;
const CODE_EXCERPT_LINES = 6;

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function listing(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

function shorten(text: string, max = VALUE_MAX_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A value as it reads in one line: strings quoted, objects as compact JSON, long ones cut. */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return shorten(JSON.stringify(value));
  if (value === undefined) return '(nothing)';
  return shorten(JSON.stringify(value) ?? String(value));
}

function codeExcerpt(code: string): string[] {
  const lines = code.split('\n');
  const shown = lines.slice(0, CODE_EXCERPT_LINES).map((line) => `  ${shorten(line)}`);
  if (lines.length > CODE_EXCERPT_LINES) shown.push(`  … ${plural(lines.length - CODE_EXCERPT_LINES, 'more line')}`);
  return shown;
}

function sheetName(id: string, sheets: Record<string, string> | undefined): string {
  const name = sheets?.[id];
  return name ? name : id;
}

function describeCreatedNode(node: GraphNode, mainSheet: string, sheets?: Record<string, string>): ChangeItem {
  const where = node.sheet !== mainSheet ? ` on sheet ${sheetName(node.sheet, sheets)}` : '';
  const details = [`type: ${node.type}`, `position: (${node.posX}, ${node.posY})`];
  if (node.process)
    details.push(`process (${plural(node.process.split('\n').length, 'line')}):`, ...codeExcerpt(node.process));
  if (node.data !== undefined) details.push(`data: ${formatValue(node.data)}`);
  return {
    effect: 'create',
    subject: 'node',
    key: node._key,
    summary: `New ${node.type} node "${node._key}"${where}`,
    details,
  };
}

function describeCreatedEdge(edge: GraphEdge, mainSheet: string, sheets?: Record<string, string>): ChangeItem {
  const where = edge.sheet !== mainSheet ? ` on sheet ${sheetName(edge.sheet, sheets)}` : '';
  const label = edge.label ? ` labelled "${edge.label}"` : '';
  return {
    effect: 'create',
    subject: 'edge',
    key: edge._key,
    summary: `New edge ${edge.source}:${edge.sourceHandle} → ${edge.target}:${edge.targetHandle}${label}${where}`,
    details: [],
  };
}

/** Field instructions grouped by node: a posX/posY pair is a move, anything else a change of fields (or removal: unset). */
function describeInstructions(instructions: NodeFieldInstruction[]): ChangeItem[] {
  const byNode = new Map<string, NodeFieldInstruction[]>();
  for (const instruction of instructions) {
    const list = byNode.get(instruction.nodeKey) ?? [];
    list.push(instruction);
    byNode.set(instruction.nodeKey, list);
  }
  const items: ChangeItem[] = [];
  for (const [nodeKey, list] of byNode) {
    const position = list.filter(
      (instruction) =>
        instruction.path.length === 1 && (instruction.path[0] === 'posX' || instruction.path[0] === 'posY'),
    );
    const fields = list.filter((instruction) => !position.includes(instruction));
    if (position.length > 0) {
      const x = position.find((instruction) => instruction.path[0] === 'posX')?.value;
      const y = position.find((instruction) => instruction.path[0] === 'posY')?.value;
      items.push({
        effect: 'move',
        subject: 'node',
        key: nodeKey,
        summary: `Node "${nodeKey}" moves to (${x ?? '…'}, ${y ?? '…'})`,
        details: [],
      });
    }
    if (fields.length > 0) {
      const details = fields.flatMap((instruction) => {
        const path = instruction.path.join('.');
        if (path === 'process' && typeof instruction.value === 'string') {
          return [
            `process → new code (${plural(instruction.value.split('\n').length, 'line')}):`,
            ...codeExcerpt(instruction.value),
          ];
        }
        if (instruction.op === 'unset') return [`${path} removed`];
        return [`${path} → ${formatValue(instruction.value)}`];
      });
      const names = fields.map((instruction) => instruction.path.join('.'));
      items.push({
        effect: 'update',
        subject: 'node',
        key: nodeKey,
        summary: `Node "${nodeKey}": ${listing(names)} changed`,
        details,
      });
    }
  }
  return items;
}

function titleOf(action: ProposedAction): string {
  switch (action.type) {
    case 'create_node':
      return `Create a ${action.payload.typeKey} node`;
    case 'create_edge':
      return `Connect ${action.payload.sourceKey} → ${action.payload.targetKey}`;
    case 'update_node':
      return `Change node "${action.payload.nodeKey}"`;
    case 'move_node':
      return `Move node "${action.payload.nodeKey}"`;
    case 'delete_node':
      return `Delete node "${action.payload.nodeKey}"`;
    case 'delete_edge':
      return `Delete edge "${action.payload.edgeKey}"`;
    case 'batch':
      return `${plural(action.payload.actions.length, 'change')} at once`;
  }
}

/** One item per node or edge a change set touches, in words, in the order a reviewer reads them. */
export function describeChanges(preview: ActionConversionResult, sheets?: Record<string, string>): ChangeItem[] {
  const main = preview.sheetId;
  return [
    ...preview.nodesToCreate.map((node) => describeCreatedNode(node, main, sheets)),
    ...preview.edgesToCreate.map((edge) => describeCreatedEdge(edge, main, sheets)),
    ...describeInstructions(preview.instructions),
    ...preview.nodeKeysToDelete.map((key): ChangeItem => ({
      effect: 'delete',
      subject: 'node',
      key,
      summary: `Node "${key}" is deleted, with its edges`,
      details: [],
    })),
    ...preview.edgeKeysToDelete.map((key): ChangeItem => ({
      effect: 'delete',
      subject: 'edge',
      key,
      summary: `Edge "${key}" is deleted`,
      details: [],
    })),
  ];
}

/** One readable line for one action of a batch (a preview item's `description`): what it does, from its change set. */
export function describeItem(changes: ActionConversionResult, sheets?: Record<string, string>): string {
  const lines = describeChanges(changes, sheets).map((change) => change.summary);
  return lines.length > 0 ? lines.join('; ') : 'Changes nothing';
}

/**
 * Describes an approval interrupt from its preview (exactly what approval applies) and
 * its proposal (title, reason). `sheets` (the graph's sheetsList) turns sheet ids into names.
 */
export function describeProposal(interrupt: ApprovalInterrupt, sheets?: Record<string, string>): ProposalDescription {
  const { preview, proposedAction } = interrupt;
  const main = preview.sheetId;
  const changes = describeChanges(preview, sheets);
  const count = (effect: ChangeItem['effect'], subject: ChangeItem['subject']) =>
    changes.filter((change) => change.effect === effect && change.subject === subject).length;
  const verbs: string[] = [];
  const phrase = (verb: string, effect: ChangeItem['effect']) => {
    const parts = (['node', 'edge'] as const)
      .map((subject) => count(effect, subject))
      .flatMap((n, i) => (n > 0 ? [plural(n, i === 0 ? 'node' : 'edge')] : []));
    if (parts.length > 0) verbs.push(`${verb} ${listing(parts)}`);
  };
  phrase('creates', 'create');
  phrase('changes', 'update');
  phrase('moves', 'move');
  phrase('deletes', 'delete');
  const action = listing(verbs) || 'changes nothing';
  const name = sheets?.[main];
  return {
    title: titleOf(proposedAction),
    headline: `${action.charAt(0).toUpperCase()}${action.slice(1)} on sheet ${name ?? main}`,
    reason: proposedAction.reason,
    sheet: name ? { id: main, name } : { id: main },
    changes,
  };
}
