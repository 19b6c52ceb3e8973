import { createHash } from 'node:crypto';
import { NodeFieldInstruction } from '../../graph/graph-change-set';
import { GraphEdge, GraphNode, NodeTypeConfig } from '../../graph/graph.types';
import { ActionConversionResult } from '../../conversation/action-conversion-result';
import { ProposedAction } from '../../conversation/proposed-action';

/** Prefix of keys the converter generates (`ai_...`). */
export const GENERATED_KEY_PREFIX = 'ai_';

/**
 * Turns an approved ProposedAction into graph mutations: field
 * instructions, full nodes and edges to create, keys to delete. Pure and deterministic: the same
 * action, graph, default sheet and key seed always give the same result, so the preview shown with
 * the interrupt is exactly what is applied after approval (on the server or by the client).
 *
 * `keySeed` (the tool-call id) makes generated keys stable: `ai_` + hash(keySeed, n) where n counts
 * the keys generated so far in this action (depth-first through batches).
 */
export class ActionConverter {
  private readonly configsByType: ReadonlyMap<string, NodeTypeConfig>;

  /** `nodeConfigs`: when a created node's type is known, its handles and size default to the config's. */
  constructor(nodeConfigs: readonly NodeTypeConfig[] = []) {
    this.configsByType = new Map(nodeConfigs.map((config) => [config._key, config]));
  }

  convert(action: ProposedAction, graphKey: string, defaultSheetId: string, keySeed: string): ActionConversionResult {
    const keys = new KeySequence(keySeed);
    return this.convertOne(action, graphKey, defaultSheetId, keys);
  }

  /**
   * The change set of each action of a batch (nested batches flattened, in order), with the keys convert() generates
   * for the whole batch: together they are exactly its result, so approving some of them applies what the preview
   * showed for those. A single action is one item.
   */
  convertItems(
    action: ProposedAction,
    graphKey: string,
    defaultSheetId: string,
    keySeed: string,
  ): Array<{ action: Exclude<ProposedAction, { type: 'batch' }>; changes: ActionConversionResult }> {
    const keys = new KeySequence(keySeed);
    const leaves = (item: ProposedAction): Array<Exclude<ProposedAction, { type: 'batch' }>> =>
      item.type === 'batch' ? item.payload.actions.flatMap(leaves) : [item];
    return leaves(action).map((leaf) => ({
      action: leaf,
      changes: this.convertOne(leaf, graphKey, defaultSheetId, keys),
    }));
  }

  private convertOne(
    action: ProposedAction,
    graphKey: string,
    defaultSheetId: string,
    keys: KeySequence,
  ): ActionConversionResult {
    switch (action.type) {
      case 'move_node': {
        const { nodeKey, posX, posY } = action.payload;
        return result(defaultSheetId, {
          instructions: [
            { nodeKey, op: 'set', path: ['posX'], value: posX, animatePos: true },
            { nodeKey, op: 'set', path: ['posY'], value: posY, animatePos: true },
          ],
        });
      }
      case 'update_node': {
        const { nodeKey, changes } = action.payload;
        const instructions: NodeFieldInstruction[] = Object.entries(changes).map(([path, value]) => ({
          nodeKey,
          op: 'set',
          path: path.split('.'),
          value: structuredClone(value),
          triggerHtmlRender: true,
        }));
        return result(defaultSheetId, { instructions });
      }
      case 'create_node':
        return result(action.payload.sheet, { nodesToCreate: [this.buildNode(action.payload, graphKey, keys)] });
      case 'create_edge': {
        const payload = action.payload;
        const edge: GraphEdge = {
          _key: payload.edgeKey ?? keys.next(),
          graphKey,
          sheet: payload.sheet,
          source: payload.sourceKey,
          sourceHandle: payload.sourceHandle,
          target: payload.targetKey,
          targetHandle: payload.targetHandle,
          ...(payload.label !== undefined ? { label: payload.label } : {}),
        };
        return result(payload.sheet, { edgesToCreate: [edge] });
      }
      case 'delete_node':
        return result(defaultSheetId, { nodeKeysToDelete: [action.payload.nodeKey] });
      case 'delete_edge':
        return result(defaultSheetId, { edgeKeysToDelete: [action.payload.edgeKey] });
      case 'batch':
        return mergeChangeSets(
          action.payload.actions.map((sub) => this.convertOne(sub, graphKey, defaultSheetId, keys)),
          defaultSheetId,
        );
    }
  }

  private buildNode(
    payload: Extract<ProposedAction, { type: 'create_node' }>['payload'],
    graphKey: string,
    keys: KeySequence,
  ): GraphNode {
    const defaults = this.configsByType.get(payload.typeKey)?.node;
    const handles = payload.handles ?? defaults?.handles;
    const node: GraphNode = {
      _key: payload.nodeKey ?? keys.next(),
      graphKey,
      type: payload.typeKey,
      sheet: payload.sheet,
      posX: payload.posX,
      posY: payload.posY,
    };
    if (defaults?.size) node.size = structuredClone(defaults.size);
    if (payload.process !== undefined) node.process = payload.process;
    if (payload.data !== undefined) node.data = structuredClone(payload.data);
    if (handles) node.handles = structuredClone(handles);
    return node;
  }
}

/** Deterministic generated keys for one conversion. */
class KeySequence {
  private index = 0;

  constructor(private readonly seed: string) {}

  next(): string {
    const digest = createHash('sha256').update(`${this.seed}\u0000${this.index++}`).digest('hex');
    return `${GENERATED_KEY_PREFIX}${digest.slice(0, 16)}`;
  }
}

function result(sheetId: string, parts: Partial<Omit<ActionConversionResult, 'sheetId'>>): ActionConversionResult {
  return {
    instructions: parts.instructions ?? [],
    nodesToCreate: parts.nodesToCreate ?? [],
    edgesToCreate: parts.edgesToCreate ?? [],
    nodeKeysToDelete: parts.nodeKeysToDelete ?? [],
    edgeKeysToDelete: parts.edgeKeysToDelete ?? [],
    sheetId,
  };
}

/**
 * Several change sets as one, in order: what a batch (or some items of it) becomes. It concerns the sheet of its
 * first part (Nodius's batch calls take one sheet).
 */
export function mergeChangeSets(
  parts: readonly ActionConversionResult[],
  fallbackSheetId: string,
): ActionConversionResult {
  return result(parts[0]?.sheetId ?? fallbackSheetId, {
    instructions: parts.flatMap((part) => part.instructions),
    nodesToCreate: parts.flatMap((part) => part.nodesToCreate),
    edgesToCreate: parts.flatMap((part) => part.edgesToCreate),
    nodeKeysToDelete: unique(parts.flatMap((part) => part.nodeKeysToDelete)),
    edgeKeysToDelete: unique(parts.flatMap((part) => part.edgeKeysToDelete)),
  });
}

function unique(keys: string[]): string[] {
  return [...new Set(keys)];
}
