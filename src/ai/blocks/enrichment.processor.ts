import type { BlockSegment } from '../../conversation/rich-message';
import type { Graph, GraphEdge, GraphNode } from '../../graph/graph.types';
import type { DataCommand } from './data-command';

/** What the blocks of a message name, read from the graph once for all of them. */
export interface BlockReferences {
  graph: Graph;
  /** The named nodes that exist (pointer nodes, modify_config nodes, mentions). */
  nodes: ReadonlyMap<string, GraphNode>;
  /** The named edges that exist. */
  edges: ReadonlyMap<string, GraphEdge>;
  /** The node types a block may name: the workspace's configured types, the built-in ones, those the graph's nodes use. */
  nodeTypes: ReadonlySet<string>;
}

/** One block turned into the commands of its data, with what it named that does not exist (or is not visible). */
export interface BlockPlan {
  /** 1-based, as in the linear text's markers. */
  blockNumber: number;
  /** Its index in the message's `segments`. */
  segment: number;
  block: BlockSegment;
  /** What the block names, from its keys only (never its preview, which is user text). */
  subject: string;
  commands: DataCommand[];
  /** e.g. "node ghost": each reference not found, worded the same whether unknown or another workspace's. */
  missing: string[];
}

/**
 * The seed's EnrichmentProcessor: a block becomes the data commands its kind asks for.
 *   pointer        its nodes pinned (mention); each edge and its two ends; a sheet's nodes and edges
 *   use            the type's configuration, data schema, a sample of its nodes' data, and where it is used
 *   create         the type's data schema and a new node's defaults
 *   modify_config  the node's whole configuration and its type's data schema
 */
export function planBlock(block: BlockSegment, blockNumber: number, segment: number, refs: BlockReferences): BlockPlan {
  const commands: DataCommand[] = [];
  const missing: string[] = [];
  let subject: string;
  switch (block.block) {
    case 'pointer': {
      const { nodeKeys = [], edgeKeys = [], sheet } = block.config;
      const parts: string[] = [];
      if (nodeKeys.length > 0) parts.push(`${nodeKeys.length === 1 ? 'node' : 'nodes'} ${nodeKeys.join(', ')}`);
      if (edgeKeys.length > 0) parts.push(`${edgeKeys.length === 1 ? 'edge' : 'edges'} ${edgeKeys.join(', ')}`);
      if (sheet !== undefined) parts.push(`sheet ${sheet}`);
      subject = parts.join('; ');
      for (const key of nodeKeys) {
        if (refs.nodes.has(key)) commands.push({ kind: 'mention', key });
        else missing.push(`node ${key}`);
      }
      for (const key of edgeKeys) {
        const edge = refs.edges.get(key);
        if (!edge) {
          missing.push(`edge ${key}`);
          continue;
        }
        commands.push({ kind: 'edge', key });
        for (const end of [edge.source, edge.target])
          if (refs.nodes.has(end)) commands.push({ kind: 'mention', key: end });
      }
      if (sheet !== undefined) {
        if (Object.prototype.hasOwnProperty.call(refs.graph.sheetsList ?? {}, sheet))
          commands.push({ kind: 'sheet', key: sheet });
        else missing.push(`sheet ${sheet}`);
      }
      break;
    }
    case 'use':
    case 'create': {
      const { nodeType } = block.config;
      subject = `node type ${nodeType}`;
      if (!refs.nodeTypes.has(nodeType)) missing.push(`node type ${nodeType}`);
      else if (block.block === 'use')
        commands.push(
          { kind: 'type_config', key: nodeType },
          { kind: 'type_schema', key: nodeType },
          { kind: 'type_sample', key: nodeType },
          { kind: 'type_stats', key: nodeType },
        );
      else commands.push({ kind: 'type_schema', key: nodeType }, { kind: 'type_defaults', key: nodeType });
      break;
    }
    case 'modify_config': {
      const { nodeKey } = block.config;
      subject = `node ${nodeKey}`;
      const node = refs.nodes.get(nodeKey);
      if (!node) missing.push(`node ${nodeKey}`);
      else commands.push({ kind: 'node_config', key: nodeKey }, { kind: 'type_schema', key: node.type });
      break;
    }
  }
  return { blockNumber, segment, block, subject, commands, missing };
}
