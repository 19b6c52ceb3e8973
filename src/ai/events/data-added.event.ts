import type { GraphRAGContext } from '../../conversation/graph-rag-context';
import type { ThreadEvent, ThreadEventResult } from '../../conversation/thread-event';
import { joinWords, plural } from './event-wording';

/** Node keys listed in the event before "+N more": enough to recognise the context, short enough for every turn. */
const LISTED_NODES_MAX = 10;

/**
 * A further part of a message's context beyond the retrieved graph (e.g. recalled conversation
 * memory): a phrase for the summary ("3 recalled memories") and one result line.
 */
export interface ContextPart {
  summary: string;
  label: string;
  detail?: string;
  ok?: boolean;
}

export interface ContextLoad {
  /** The retrieved sub-graph of the message. */
  context: GraphRAGContext;
  /** The node keys the user pinned (mentions), as sent. */
  mentions: readonly string[];
  /** Estimated tokens of everything the context added (the context message). */
  tokens: number;
  /** Other parts the context held, each from the source that added it. */
  parts?: readonly ContextPart[];
  /**
   * What the message attached (docs/protocol.md §9.6), as BlockDataExecutor reported it: one result per mention
   * (replacing those worked out from `mentions`) and one per block.
   */
  attached?: { mentionResults: readonly ThreadEventResult[]; blockResults: readonly ThreadEventResult[] };
}

/**
 * The DATA_ADDED event of one user message:
 * what was loaded into the context for it, e.g. "Loaded 12 nodes and 9 edges into the context
 * (~1,840 tokens)", with one result per part and a failed one per mention the graph does not have.
 */
export function dataAddedEvent(load: ContextLoad): ThreadEvent {
  const nodes = load.context.relevantNodes.map((node) => node._key);
  const edges = load.context.relevantEdges.length;
  const found = new Set(nodes);
  const parts = load.parts ?? [];

  const blocks = load.attached?.blockResults ?? [];
  const counted = [
    plural(nodes.length, 'node'),
    plural(edges, 'edge'),
    ...(blocks.length > 0 ? [plural(blocks.length, 'attached block')] : []),
    ...parts.map((part) => part.summary),
  ];
  const summary = `Loaded ${joinWords(counted)} into the context (~${load.tokens.toLocaleString('en-US')} tokens)`;

  const listed = nodes.slice(0, LISTED_NODES_MAX).join(', ');
  const results: ThreadEventResult[] = [
    {
      ok: true,
      label: 'nodes',
      detail:
        nodes.length > LISTED_NODES_MAX ? `${listed} (+${nodes.length - LISTED_NODES_MAX} more)` : listed || 'none',
    },
    { ok: true, label: 'edges', detail: String(edges) },
  ];
  if (load.attached) results.push(...load.attached.mentionResults, ...blocks);
  else
    for (const mention of load.mentions) {
      results.push(
        found.has(mention)
          ? { ok: true, label: `mention ${mention}` }
          : { ok: false, label: `mention ${mention}`, detail: 'not in the graph' },
      );
    }
  for (const part of parts)
    results.push({ ok: part.ok ?? true, label: part.label, ...(part.detail ? { detail: part.detail } : {}) });
  return { type: 'DATA_ADDED', summary, results };
}
