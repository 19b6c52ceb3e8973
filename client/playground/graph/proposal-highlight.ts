import type { ReviewItem } from '../../src/proposal-items';
import { type ChangeItem, describeProposal } from '../../src/protocol';
import type { ApprovalInterrupt, GraphEdge, GraphNode, NodeFieldInstruction } from '../../src/protocol';

/** How a proposal touches a node or an edge, as the legend names it: a move is a change. */
export type Highlight = 'added' | 'changed' | 'deleted';

/** The reviewer's decision on an element's part of a proposal; absent while the proposal is decided as a whole. */
export type ItemDecision = 'accepted' | 'declined';

/** What the proposal does to one element: its highlight and the changes behind it, in words. */
export interface ElementMark {
  highlight: Highlight;
  changes: ChangeItem[];
  decision?: ItemDecision;
}

export interface NodePosition {
  x: number;
  y: number;
}

/**
 * A pending proposal laid over the graph: the existing nodes and edges it changes or deletes (by key), those it
 * creates (not in the graph yet: drawn as ghosts), and where the nodes it moves would go.
 */
export interface ProposalHighlight {
  /** The sheet the proposal is about (its preview's). */
  sheetId: string;
  nodes: Map<string, ElementMark>;
  edges: Map<string, ElementMark>;
  createdNodes: Map<string, { node: GraphNode; mark: ElementMark }>;
  createdEdges: Map<string, { edge: GraphEdge; mark: ElementMark }>;
  /** Target of a move; a coordinate the move leaves out stays where it is. */
  moves: Map<string, { x?: number; y?: number }>;
}

const STRENGTH: Record<Highlight, number> = { changed: 0, added: 1, deleted: 2 };
const HIGHLIGHT_OF: Record<ChangeItem['effect'], Highlight> = {
  create: 'added',
  update: 'changed',
  move: 'changed',
  delete: 'deleted',
};

/** Adds a change to an element's mark; the strongest highlight wins (deleted over added over changed). */
function markWith(marks: Map<string, ElementMark>, key: string, change: ChangeItem): ElementMark {
  const highlight = HIGHLIGHT_OF[change.effect];
  const mark = marks.get(key);
  if (!mark) {
    const created: ElementMark = { highlight, changes: [change] };
    marks.set(key, created);
    return created;
  }
  mark.changes.push(change);
  if (STRENGTH[highlight] > STRENGTH[mark.highlight]) mark.highlight = highlight;
  return mark;
}

function coordinate(instructions: NodeFieldInstruction[], nodeKey: string, field: 'posX' | 'posY'): number | undefined {
  const value = instructions.find(
    (instruction) => instruction.nodeKey === nodeKey && instruction.path.length === 1 && instruction.path[0] === field,
  )?.value;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * The elements an approval interrupt touches, read from describeProposal (which sorts the preview into created,
 * updated, moved and deleted items); the preview gives the created nodes and edges and the moves' targets.
 */
export function highlightProposal(interrupt: ApprovalInterrupt): ProposalHighlight {
  const { preview } = interrupt;
  const highlight: ProposalHighlight = {
    sheetId: preview.sheetId,
    nodes: new Map(),
    edges: new Map(),
    createdNodes: new Map(),
    createdEdges: new Map(),
    moves: new Map(),
  };
  const createdNodeMarks = new Map<string, ElementMark>();
  const createdEdgeMarks = new Map<string, ElementMark>();
  for (const change of describeProposal(interrupt).changes) {
    const { key, subject, effect } = change;
    if (effect === 'create') {
      if (subject === 'node') {
        const node = preview.nodesToCreate.find((candidate) => candidate._key === key);
        if (node) highlight.createdNodes.set(key, { node, mark: markWith(createdNodeMarks, key, change) });
      } else {
        const edge = preview.edgesToCreate.find((candidate) => candidate._key === key);
        if (edge) highlight.createdEdges.set(key, { edge, mark: markWith(createdEdgeMarks, key, change) });
      }
      continue;
    }
    // A later change to a node the same proposal creates (a batch may create then move it) belongs to its ghost.
    const created = subject === 'node' ? createdNodeMarks.get(key) : createdEdgeMarks.get(key);
    if (created && effect !== 'delete') created.changes.push(change);
    else markWith(subject === 'node' ? highlight.nodes : highlight.edges, key, change);
    if (effect === 'move') {
      highlight.moves.set(key, {
        x: coordinate(preview.instructions, key, 'posX'),
        y: coordinate(preview.instructions, key, 'posY'),
      });
    }
  }
  return highlight;
}

/** The mark in one or two words, as the node's badge and the labels say it: "New", "Moved", "Deleted · declined". */
export function markLabel(mark: ElementMark): string {
  const effects = new Set(mark.changes.map((change) => change.effect));
  let label: string;
  if (mark.highlight === 'deleted') label = 'Deleted';
  else if (mark.highlight === 'added') label = 'New';
  else if (!effects.has('update')) label = 'Moved';
  else label = effects.has('move') ? 'Changed, moved' : 'Changed';
  return mark.decision ? `${label} · ${mark.decision}` : label;
}

/**
 * The reviewer's choice among a batch's items, drawn on its highlight (a copy): each element an approved item
 * touches is `accepted`, each one only declined items touch is `declined`. Unchanged while every item is approved,
 * as for a proposal decided whole.
 */
export function withDecisions(
  highlight: ProposalHighlight,
  items: readonly Pick<ReviewItem, 'itemId' | 'nodeKeys' | 'edgeKeys'>[],
  approved: ReadonlySet<string>,
): ProposalHighlight {
  if (items.every((item) => approved.has(item.itemId))) return highlight;
  const decisionOf = (kind: 'node' | 'edge', key: string): ItemDecision | undefined => {
    const touching = items.filter((item) => (kind === 'node' ? item.nodeKeys : item.edgeKeys).includes(key));
    if (touching.length === 0) return undefined;
    return touching.some((item) => approved.has(item.itemId)) ? 'accepted' : 'declined';
  };
  const decided = (kind: 'node' | 'edge', key: string, mark: ElementMark): ElementMark => {
    const decision = decisionOf(kind, key);
    return decision ? { ...mark, decision } : mark;
  };
  const marks = (kind: 'node' | 'edge', source: Map<string, ElementMark>) =>
    new Map([...source].map(([key, mark]) => [key, decided(kind, key, mark)]));
  return {
    ...highlight,
    nodes: marks('node', highlight.nodes),
    edges: marks('edge', highlight.edges),
    createdNodes: new Map(
      [...highlight.createdNodes].map(([key, { node, mark }]) => [key, { node, mark: decided('node', key, mark) }]),
    ),
    createdEdges: new Map(
      [...highlight.createdEdges].map(([key, { edge, mark }]) => [key, { edge, mark: decided('edge', key, mark) }]),
    ),
  };
}
