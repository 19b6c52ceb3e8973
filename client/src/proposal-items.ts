import type { ActionConversionResult, ApprovalInterrupt, ProposalItem, ProposedAction } from './protocol';

type LeafAction = Exclude<ProposedAction, { type: 'batch' }>;

/** One item of a batch proposal as a reviewer decides on it: the preview's item, with its part of the preview. */
export interface ReviewItem extends ProposalItem {
  /** What approving this item applies: its slice of the preview, exactly. */
  changes: ActionConversionResult;
  /** The nodes it creates, changes, moves or deletes. */
  nodeKeys: string[];
  /** The edges it creates or deletes (the edges of a node it deletes go with that node). */
  edgeKeys: string[];
}

/** An approved item that needs a node or edge which only a declined item creates: the service would refuse the subset. */
export interface UnmetNeed {
  itemId: string;
  kind: 'node' | 'edge';
  key: string;
  /** The declined item that creates it. */
  creator: string;
}

function leavesOf(action: ProposedAction): LeafAction[] {
  return action.type === 'batch' ? action.payload.actions.flatMap(leavesOf) : [action];
}

function emptyChanges(sheetId: string): ActionConversionResult {
  return {
    instructions: [],
    nodesToCreate: [],
    edgesToCreate: [],
    nodeKeysToDelete: [],
    edgeKeysToDelete: [],
    sheetId,
  };
}

/**
 * The items of a batch proposal, each with its part of the preview and the keys it touches (docs/protocol.md §9.3).
 * The preview is the batch's actions converted in order (nested batches flattened) and concatenated, one item per
 * action: a created node or edge each, one instruction per changed field, two per move, one key per deletion. So the
 * preview is cut back into items by walking the actions, and the cut is checked to use every part exactly once and
 * to find each key where the action names it. Null for a single proposal, or a preview that does not cut that way
 * (then the items can still be decided on, without their details).
 */
export function reviewItems(interrupt: ApprovalInterrupt): ReviewItem[] | null {
  const { preview, proposedAction } = interrupt;
  const items = preview.items;
  if (!items || items.length === 0) return null;
  const leaves = leavesOf(proposedAction);
  if (leaves.length !== items.length || leaves.some((leaf, index) => leaf.type !== items[index].type)) return null;
  let nodeAt = 0;
  let edgeAt = 0;
  let instructionAt = 0;
  const takeInstructions = (nodeKey: string, count: number) => {
    const taken = preview.instructions.slice(instructionAt, instructionAt + count);
    instructionAt += count;
    return taken.length === count && taken.every((instruction) => instruction.nodeKey === nodeKey) ? taken : null;
  };
  const result: ReviewItem[] = [];
  for (const [index, leaf] of leaves.entries()) {
    const changes = emptyChanges(preview.sheetId);
    switch (leaf.type) {
      case 'create_node': {
        const node = preview.nodesToCreate[nodeAt++];
        if (!node || (leaf.payload.nodeKey !== undefined && node._key !== leaf.payload.nodeKey)) return null;
        changes.nodesToCreate.push(node);
        changes.sheetId = node.sheet;
        break;
      }
      case 'create_edge': {
        const edge = preview.edgesToCreate[edgeAt++];
        if (!edge || (leaf.payload.edgeKey !== undefined && edge._key !== leaf.payload.edgeKey)) return null;
        changes.edgesToCreate.push(edge);
        changes.sheetId = edge.sheet;
        break;
      }
      case 'update_node':
      case 'move_node': {
        const count = leaf.type === 'move_node' ? 2 : Object.keys(leaf.payload.changes).length;
        const taken = takeInstructions(leaf.payload.nodeKey, count);
        if (!taken) return null;
        changes.instructions.push(...taken);
        break;
      }
      case 'delete_node':
        changes.nodeKeysToDelete.push(leaf.payload.nodeKey);
        break;
      case 'delete_edge':
        changes.edgeKeysToDelete.push(leaf.payload.edgeKey);
        break;
    }
    result.push({ ...items[index], changes, ...keysOf(changes) });
  }
  const usedAll =
    nodeAt === preview.nodesToCreate.length &&
    edgeAt === preview.edgesToCreate.length &&
    instructionAt === preview.instructions.length;
  return usedAll ? result : null;
}

function keysOf(changes: ActionConversionResult): { nodeKeys: string[]; edgeKeys: string[] } {
  return {
    nodeKeys: [
      ...new Set([
        ...changes.nodesToCreate.map((node) => node._key),
        ...changes.instructions.map((instruction) => instruction.nodeKey),
        ...changes.nodeKeysToDelete,
      ]),
    ],
    edgeKeys: [...new Set([...changes.edgesToCreate.map((edge) => edge._key), ...changes.edgeKeysToDelete])],
  };
}

/**
 * What the service would refuse in approving `approved` (docs/protocol.md §9.3): an approved item that needs a
 * node or edge only a declined item creates (an edge's ends, a changed or moved node, a deleted edge).
 */
export function unmetNeeds(items: readonly ReviewItem[], approved: ReadonlySet<string>): UnmetNeed[] {
  const createdBy = new Map<string, string>();
  for (const item of items) {
    for (const node of item.changes.nodesToCreate) createdBy.set(`node:${node._key}`, item.itemId);
    for (const edge of item.changes.edgesToCreate) createdBy.set(`edge:${edge._key}`, item.itemId);
  }
  const unmet: UnmetNeed[] = [];
  for (const item of items) {
    if (!approved.has(item.itemId)) continue;
    const needs: Array<{ kind: 'node' | 'edge'; key: string }> = [
      ...item.changes.edgesToCreate.flatMap((edge) => [edge.source, edge.target]),
      ...item.changes.instructions.map((instruction) => instruction.nodeKey),
    ].map((key) => ({ kind: 'node' as const, key }));
    needs.push(...item.changes.edgeKeysToDelete.map((key) => ({ kind: 'edge' as const, key })));
    const seen = new Set<string>();
    for (const need of needs) {
      const creator = createdBy.get(`${need.kind}:${need.key}`);
      if (creator === undefined || creator === item.itemId || approved.has(creator)) continue;
      if (seen.has(`${need.kind}:${need.key}`)) continue;
      seen.add(`${need.kind}:${need.key}`);
      unmet.push({ itemId: item.itemId, ...need, creator });
    }
  }
  return unmet;
}
