import type { OperationService } from '../../changes/operation.service';
import { describeItem } from '../../conversation/proposal-description';
import type { ProposalItem, ProposalPreview } from '../../conversation/proposal-preview';
import type { ProposedAction } from '../../conversation/proposed-action';
import type { Graph } from '../../graph/graph.types';
import type { MutableGraphDataSource } from '../../graph/mutable-graph-data-source';
import type { PendingItem } from '../../threads/thread.types';
import { ActionConverter, mergeChangeSets } from './action.converter';

/** A proposal ready to be shown: its preview, and for a batch each item's change set and basis (kept with the interrupt). */
export interface PreparedProposal {
  preview: ProposalPreview;
  items?: PendingItem[];
}

/**
 * What a proposal becomes before anyone decides on it: the change set approval
 * applies (ActionConverter, keys seeded by the thread and the tool call so they are stable and distinct across
 * threads), what it was made against (its basis: the fingerprints of every node and edge it reads or touches, as the
 * user sees the graph now), and for a batch one item per action with a one-line description.
 */
export class ProposalPreviewBuilder {
  private converter: Promise<ActionConverter> | null = null;

  constructor(
    private readonly operations: OperationService,
    private readonly dataSource: MutableGraphDataSource,
    private readonly graphKey: string,
    private readonly graph: Graph | null,
    private readonly threadId: string,
  ) {}

  async prepare(action: ProposedAction, toolCallId: string): Promise<PreparedProposal> {
    this.converter ??= this.dataSource.getNodeConfigs().then((configs) => new ActionConverter(configs));
    const converter = await this.converter;
    const sheet = await this.defaultSheetOf(action);
    const seed = `${this.threadId}:${toolCallId}`;
    const { workspace } = this.dataSource;
    if (action.type !== 'batch') {
      const changes = converter.convert(action, this.graphKey, sheet, seed);
      const [basis] = await this.operations.basesOf(workspace, this.graphKey, [changes]);
      return { preview: { ...changes, basis } };
    }
    const converted = converter.convertItems(action, this.graphKey, sheet, seed);
    const changes = mergeChangeSets(
      converted.map((item) => item.changes),
      sheet,
    );
    const [basis, ...itemBases] = await this.operations.basesOf(workspace, this.graphKey, [
      changes,
      ...converted.map((item) => item.changes),
    ]);
    const sheets = this.graph?.sheetsList;
    const items: ProposalItem[] = converted.map((item, index) => ({
      itemId: `i${index + 1}`,
      type: item.action.type,
      description: describeItem(item.changes, sheets),
    }));
    return {
      preview: { ...changes, basis, items },
      items: converted.map((item, index) => ({
        itemId: `i${index + 1}`,
        changes: item.changes,
        basis: itemBases[index],
      })),
    };
  }

  /** The sheet of a proposal without one of its own (move/update/delete): the sheet of what it touches, else the graph's first. */
  private async defaultSheetOf(action: ProposedAction): Promise<string> {
    const fallback = Object.keys(this.graph?.sheetsList ?? {})[0] ?? '0';
    let target: ProposedAction | undefined = action;
    while (target?.type === 'batch') target = target.payload.actions[0];
    if (!target) return fallback;
    switch (target.type) {
      case 'move_node':
      case 'update_node':
      case 'delete_node':
        return (await this.dataSource.getNodeByKey(this.graphKey, target.payload.nodeKey))?.sheet ?? fallback;
      case 'delete_edge': {
        const edgeKey = target.payload.edgeKey;
        return (await this.dataSource.getEdges(this.graphKey)).find((edge) => edge._key === edgeKey)?.sheet ?? fallback;
      }
      default:
        return fallback;
    }
  }
}
