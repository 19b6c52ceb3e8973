import type { Edge, Node } from '@xyflow/react';
import type { GraphDocument, GraphEdge, GraphNode } from '../../src/protocol';
import type { ChangeItem } from '../../src/protocol';
import {
  type ElementMark,
  type Highlight,
  markLabel,
  type NodePosition,
  type ProposalHighlight,
} from './proposal-highlight';

type NodeTypeConfig = GraphDocument['nodeConfigs'][number];
type NodeHandles = NonNullable<GraphNode['handles']>;

export type HandleSide = 'top' | 'right' | 'bottom' | 'left';

/** One connection point drawn on a node; `id` null is the node's default handle of that kind. */
export interface HandleView {
  id: string | null;
  kind: 'source' | 'target';
  side: HandleSide;
  /** Where along its side, in percent. */
  offset: number;
  /** The handle's `display` name, if it has one (e.g. "success"). */
  label?: string;
}

export type WorkflowNodeData = {
  nodeKey: string;
  typeLabel: string;
  handles: HandleView[];
  mark?: ElementMark;
  /** `created`: a node the proposal adds; `moved`: where a node the proposal moves would go. */
  ghost?: 'created' | 'moved';
  /** The node changed since the pending proposal was made (what makes it, or some of its items, stale). */
  changedSince?: boolean;
};
export type WorkflowFlowNode = Node<WorkflowNodeData, 'workflow'>;
export type WorkflowEdgeData = { mark?: ElementMark };
export type WorkflowFlowEdge = Edge<WorkflowEdgeData>;

export interface SheetFlow {
  nodes: WorkflowFlowNode[];
  edges: WorkflowFlowEdge[];
}

/** Top-left positions for a sheet whose stored positions cannot be used. */
export type AutoLayout = (
  nodes: Array<{ id: string; width: number; height: number }>,
  edges: Array<{ source: string; target: string }>,
) => Map<string, NodePosition>;

export interface SheetFlowOptions {
  /** The pending proposal, drawn over the sheet. */
  highlight?: ProposalHighlight | null;
  /** Used when the sheet needs it (sheetNeedsLayout). */
  layout?: AutoLayout;
  /** The nodes and edges of the pending proposal's basis that changed since it was made. */
  changedSince?: { nodes: ReadonlySet<string>; edges: ReadonlySet<string> };
}

const CHANGED_SINCE = '. Changed since the proposal was made';

/** Id of the ghost that shows where a moved node would go (node keys never hold a colon). */
export const movedGhostId = (nodeKey: string) => `moved:${nodeKey}`;

const DEFAULT_SIZE = { width: 180, height: 64 };
const MIN_SIZE = { width: 96, height: 44 };
const MAX_SIZE = { width: 480, height: 320 };
const SIDES: Record<string, HandleSide> = { T: 'top', D: 'bottom', R: 'right', L: 'left' };

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
const classes = (...names: Array<string | false | undefined>) => names.filter(Boolean).join(' ');
const isPlaced = (node: GraphNode) => Number.isFinite(node.posX) && Number.isFinite(node.posY);

/**
 * Whether the stored positions of these nodes cannot be used: one is missing, or all sit on one point (a store that
 * never had positions). Then the sheet is laid out automatically.
 */
export function needsLayout(nodes: readonly GraphNode[]): boolean {
  if (nodes.some((node) => !isPlaced(node))) return true;
  return nodes.length > 1 && nodes.every((node) => node.posX === nodes[0].posX && node.posY === nodes[0].posY);
}

export function sheetNeedsLayout(document: GraphDocument, sheetId: string): boolean {
  return needsLayout(document.nodes.filter((node) => node.sheet === sheetId));
}

/** The node's size as drawn: its own, else its type's, else a default, kept within readable bounds. */
function sizeOf(node: GraphNode, config: NodeTypeConfig | undefined): { width: number; height: number } {
  const size = node.size ?? config?.node?.size ?? DEFAULT_SIZE;
  return {
    width: clamp(Number.isFinite(size.width) ? size.width : DEFAULT_SIZE.width, MIN_SIZE.width, MAX_SIZE.width),
    height: clamp(Number.isFinite(size.height) ? size.height : DEFAULT_SIZE.height, MIN_SIZE.height, MAX_SIZE.height),
  };
}

/** A handle id's side when only the id is known: Nodius names them after their side ("R-1"). */
function sideOfId(id: string, kind: HandleView['kind']): HandleSide {
  return SIDES[/^([TDRL])-/.exec(id)?.[1] ?? ''] ?? (kind === 'source' ? 'right' : 'left');
}

/**
 * The handles of a node: those it declares (or its type declares), and any an edge of the sheet uses that is not
 * declared, so that every stored edge is drawn. Side "0" (no side) puts inputs left and outputs right.
 */
export function handlesOf(
  node: GraphNode,
  config: NodeTypeConfig | undefined,
  edges: readonly GraphEdge[],
): HandleView[] {
  const handles: Array<Omit<HandleView, 'offset'>> = [];
  const has = (id: string | null, kind: HandleView['kind']) =>
    handles.some((handle) => handle.id === id && handle.kind === kind);
  const declared: NodeHandles = node.handles ?? config?.node?.handles ?? {};
  for (const [side, group] of Object.entries(declared)) {
    for (const point of group?.point ?? []) {
      const kind = point.type === 'out' ? 'source' : 'target';
      if (has(point.id, kind)) continue;
      handles.push({
        id: point.id,
        kind,
        side: SIDES[side] ?? (kind === 'source' ? 'right' : 'left'),
        ...(point.display ? { label: point.display } : {}),
      });
    }
  }
  for (const edge of edges) {
    const ends = [
      { nodeKey: edge.source, id: edge.sourceHandle || null, kind: 'source' as const },
      { nodeKey: edge.target, id: edge.targetHandle || null, kind: 'target' as const },
    ];
    for (const end of ends) {
      if (end.nodeKey !== node._key || has(end.id, end.kind)) continue;
      handles.push({
        id: end.id,
        kind: end.kind,
        side: end.id ? sideOfId(end.id, end.kind) : end.kind === 'source' ? 'right' : 'left',
      });
    }
  }
  const perSide = new Map<HandleSide, number>();
  for (const handle of handles) perSide.set(handle.side, (perSide.get(handle.side) ?? 0) + 1);
  const seen = new Map<HandleSide, number>();
  return handles.map((handle) => {
    const index = seen.get(handle.side) ?? 0;
    seen.set(handle.side, index + 1);
    return { ...handle, offset: Math.round(((index + 1) / (perSide.get(handle.side)! + 1)) * 100) };
  });
}

function describeMark(mark: ElementMark | undefined): string {
  if (!mark) return '';
  return `. ${markLabel(mark)}: ${mark.changes.map((change) => change.summary).join('; ')}`;
}

/** The proposal's marks on existing elements, with the edges of each deleted node (they go with it). */
export function marksOf(
  document: GraphDocument,
  highlight: ProposalHighlight | null,
): { nodes: Map<string, ElementMark>; edges: Map<string, ElementMark> } {
  if (!highlight) return { nodes: new Map(), edges: new Map() };
  const edges = new Map(highlight.edges);
  for (const edge of document.edges) {
    if (edges.get(edge._key)?.highlight === 'deleted') continue;
    const gone = [edge.source, edge.target].find((key) => highlight.nodes.get(key)?.highlight === 'deleted');
    if (gone === undefined) continue;
    const change: ChangeItem = {
      effect: 'delete',
      subject: 'edge',
      key: edge._key,
      summary: `Edge "${edge._key}" is deleted with node "${gone}"`,
      details: [],
    };
    const mark = edges.get(edge._key);
    edges.set(edge._key, {
      ...mark,
      highlight: 'deleted',
      changes: [...(mark?.changes ?? []), change],
      ...(highlight.nodes.get(gone)?.decision ? { decision: highlight.nodes.get(gone)!.decision } : {}),
    });
  }
  return { nodes: highlight.nodes, edges };
}

/** How many elements the proposal highlights, by highlight and by sheet (the legend and the sheet switcher). */
export function proposalCounts(
  document: GraphDocument,
  highlight: ProposalHighlight | null,
): { byHighlight: Record<Highlight, number>; bySheet: Map<string, number> } {
  const byHighlight: Record<Highlight, number> = { added: 0, changed: 0, deleted: 0 };
  const bySheet = new Map<string, number>();
  if (!highlight) return { byHighlight, bySheet };
  const count = (mark: ElementMark, sheet: string) => {
    byHighlight[mark.highlight] += 1;
    bySheet.set(sheet, (bySheet.get(sheet) ?? 0) + 1);
  };
  const nodeSheets = new Map(document.nodes.map((node) => [node._key, node.sheet]));
  const edgeSheets = new Map(document.edges.map((edge) => [edge._key, edge.sheet]));
  const marks = marksOf(document, highlight);
  for (const [key, mark] of marks.nodes) count(mark, nodeSheets.get(key) ?? highlight.sheetId);
  for (const [key, mark] of marks.edges) count(mark, edgeSheets.get(key) ?? highlight.sheetId);
  for (const { node, mark } of highlight.createdNodes.values()) count(mark, node.sheet);
  for (const { edge, mark } of highlight.createdEdges.values()) count(mark, edge.sheet);
  return { byHighlight, bySheet };
}

/**
 * One sheet of the graph as xyflow nodes and edges: each node at its stored position (or the automatic layout's),
 * with its handles; the pending proposal's marks on what it changes or deletes, ghosts for what it creates and for
 * where it moves nodes. Edges whose ends are not both drawn are left out.
 */
export function sheetFlow(document: GraphDocument, sheetId: string, options: SheetFlowOptions = {}): SheetFlow {
  const highlight = options.highlight ?? null;
  const configs = new Map(document.nodeConfigs.map((config) => [config._key, config]));
  const marks = marksOf(document, highlight);
  const stored = document.nodes.filter((node) => node.sheet === sheetId);
  const created = [...(highlight?.createdNodes.values() ?? [])].filter(({ node }) => node.sheet === sheetId);
  const drawnKeys = new Set([...stored, ...created.map(({ node }) => node)].map((node) => node._key));
  const edgeMarks = new Map<string, ElementMark>(marks.edges);
  const createdEdges = [...(highlight?.createdEdges.values() ?? [])].filter(({ edge }) => edge.sheet === sheetId);
  for (const { edge, mark } of createdEdges) edgeMarks.set(edge._key, mark);
  const edges = [...document.edges.filter((edge) => edge.sheet === sheetId), ...createdEdges.map(({ edge }) => edge)]
    .filter((edge) => drawnKeys.has(edge.source) && drawnKeys.has(edge.target))
    .map((edge) => toFlowEdge(edge, edgeMarks.get(edge._key), options.changedSince?.edges.has(edge._key) ?? false));
  const edgesByNode = new Map<string, GraphEdge[]>();
  for (const edge of [...document.edges, ...createdEdges.map(({ edge }) => edge)]) {
    for (const key of new Set([edge.source, edge.target])) {
      const list = edgesByNode.get(key);
      if (list) list.push(edge);
      else edgesByNode.set(key, [edge]);
    }
  }

  const flowNode = (node: GraphNode, mark: ElementMark | undefined, ghost?: 'created'): WorkflowFlowNode => {
    const config = configs.get(node.type);
    const typeLabel = config?.displayName || node.type;
    const move = ghost ? highlight?.moves.get(node._key) : undefined;
    const changedSince = !ghost && (options.changedSince?.nodes.has(node._key) ?? false);
    return {
      id: node._key,
      type: 'workflow',
      position: {
        x: move?.x ?? (Number.isFinite(node.posX) ? node.posX : 0),
        y: move?.y ?? (Number.isFinite(node.posY) ? node.posY : 0),
      },
      ...sizeOf(node, config),
      className: classes(
        'pg-node',
        mark && `pg-node--${mark.highlight}`,
        ghost && 'pg-node--ghost',
        mark?.decision && `pg-node--${mark.decision}`,
        changedSince && 'pg-node--stale',
      ),
      ariaLabel: `${ghost ? 'Proposed node' : 'Node'} ${node._key} (${typeLabel})${describeMark(mark)}${changedSince ? CHANGED_SINCE : ''}`,
      data: {
        nodeKey: node._key,
        typeLabel,
        handles: handlesOf(node, config, edgesByNode.get(node._key) ?? []),
        ...(mark ? { mark } : {}),
        ...(ghost ? { ghost } : {}),
        ...(changedSince ? { changedSince } : {}),
      },
    };
  };
  const nodes = [
    ...stored.map((node) => flowNode(node, marks.nodes.get(node._key))),
    ...created.map(({ node, mark }) => flowNode(node, mark, 'created')),
  ];

  if (options.layout && needsLayout(stored)) {
    const positions = options.layout(
      nodes.map((node) => ({ id: node.id, width: node.width!, height: node.height! })),
      edges,
    );
    return { nodes: nodes.map((node) => ({ ...node, position: positions.get(node.id) ?? node.position })), edges };
  }
  // Where each moved node would go: a ghost of it, beside the node that stays highlighted where it is now.
  for (const node of stored) {
    const move = highlight?.moves.get(node._key);
    const mark = marks.nodes.get(node._key);
    if (!move || !mark || mark.highlight === 'deleted') continue;
    const current = nodes.find((candidate) => candidate.id === node._key)!;
    nodes.push({
      ...current,
      id: movedGhostId(node._key),
      position: { x: move.x ?? current.position.x, y: move.y ?? current.position.y },
      className: classes('pg-node', 'pg-node--changed', 'pg-node--ghost', mark.decision && `pg-node--${mark.decision}`),
      ariaLabel: `Proposed position of node ${node._key}${describeMark(mark)}`,
      data: { ...current.data, handles: [], ghost: 'moved' },
    });
  }
  return { nodes, edges };
}

function toFlowEdge(edge: GraphEdge, mark: ElementMark | undefined, changedSince: boolean): WorkflowFlowEdge {
  const label = edge.label ? ` "${edge.label}"` : '';
  return {
    id: edge._key,
    source: edge.source,
    target: edge.target,
    sourceHandle: edge.sourceHandle || null,
    targetHandle: edge.targetHandle || null,
    ...(edge.label ? { label: edge.label } : {}),
    className: classes(
      'pg-edge',
      mark && `pg-edge--${mark.highlight}`,
      mark?.decision && `pg-edge--${mark.decision}`,
      changedSince && 'pg-edge--stale',
    ),
    markerEnd: mark ? `pg-arrow-${mark.highlight}` : 'pg-arrow',
    ariaLabel: `Edge ${edge.source} → ${edge.target}${label}${describeMark(mark)}${changedSince ? CHANGED_SINCE : ''}`,
    data: mark ? { mark } : {},
  };
}
