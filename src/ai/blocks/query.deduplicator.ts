import type { GraphEdge } from '../../graph/graph.types';
import { commandId, DataCommand } from './data-command';
import type { BlockPlan } from './enrichment.processor';

/** What the stable level 2 of the prompt holds already (the always-sent data, whole entries only). */
export interface AlwaysSentKeys {
  /** Nodes whose whole configuration is in level 2. */
  nodeKeys: ReadonlySet<string>;
  /** Node types whose configuration and the data of every node are in level 2. */
  nodeTypes: ReadonlySet<string>;
}

export const NOTHING_ALWAYS_SENT: AlwaysSentKeys = Object.freeze({
  nodeKeys: new Set<string>(),
  nodeTypes: new Set<string>(),
});

/** Why a command loads nothing: its data is in level 2 already, or another block of the message loads it. */
export type DroppedReason = { reason: 'always_sent' } | { reason: 'same_as'; blockNumber: number };

export interface DedupedCommand {
  command: DataCommand;
  dropped?: DroppedReason;
}

export interface DedupedPlan extends BlockPlan {
  entries: DedupedCommand[];
}

/**
 * The seed's QueryDeduplicator: each piece of data goes into the prompt once, so the data blocks add at level 4 never
 * repeats the stable levels (whose bytes, and the providers' prompt caches, stay as they are) and no two blocks load
 * the same data.
 *   - against level 2: a node always sent whole is neither pinned again nor loaded again (mention, node_config); a
 *     type always sent brings its configuration and its nodes' data (type_config, type_sample);
 *   - identity: a command a block of the message loads already is dropped from the later blocks;
 *   - inclusion: an edge on a sheet a block loads is in that sheet's data.
 */
export function deduplicateCommands(
  plans: readonly BlockPlan[],
  stable: AlwaysSentKeys,
  edges: ReadonlyMap<string, GraphEdge>,
): DedupedPlan[] {
  const loadedBy = new Map<string, number>();
  const sheets = new Map<string, number>();
  for (const plan of plans)
    for (const command of plan.commands)
      if (command.kind === 'sheet' && !sheets.has(command.key)) sheets.set(command.key, plan.blockNumber);

  return plans.map((plan) => ({
    ...plan,
    entries: plan.commands.map((command): DedupedCommand => {
      if (isInLevelTwo(command, stable)) return { command, dropped: { reason: 'always_sent' } };
      const id = commandId(command);
      const first = loadedBy.get(id);
      if (first !== undefined) return { command, dropped: { reason: 'same_as', blockNumber: first } };
      if (command.kind === 'edge') {
        const sheet = edges.get(command.key)?.sheet;
        const withSheet = sheet === undefined ? undefined : sheets.get(sheet);
        if (withSheet !== undefined) return { command, dropped: { reason: 'same_as', blockNumber: withSheet } };
      }
      loadedBy.set(id, plan.blockNumber);
      return { command };
    }),
  }));
}

/** Whether level 2 holds the command's data already. */
export function isInLevelTwo(command: DataCommand, stable: AlwaysSentKeys): boolean {
  switch (command.kind) {
    case 'mention':
    case 'node_config':
      return stable.nodeKeys.has(command.key);
    case 'type_config':
    case 'type_sample':
      return stable.nodeTypes.has(command.key);
    default:
      return false;
  }
}
