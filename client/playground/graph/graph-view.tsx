import { Background, Controls, type NodeTypes, ReactFlow, useEdgesState, useNodesState } from '@xyflow/react';
import { useEffect, useMemo, useState } from 'react';
import { reviewItems } from '../../src/proposal-items';
import { describeChanged } from '../../src/proposal-outcome';
import type { ProposalStaleness } from '../../src/proposal-staleness';
import { describeProposal } from '../../src/protocol';
import type { ApprovalInterrupt, GraphDocument } from '../../src/protocol';
import { ElementDetails, type SelectedElement } from './element-details';
import { type AutoLayout, proposalCounts, type SheetFlow, sheetFlow, sheetNeedsLayout } from './graph-flow';
import { highlightProposal, withDecisions } from './proposal-highlight';
import { ProposalLegend } from './proposal-legend';
import { WorkflowNode } from './workflow-node';

export interface GraphViewProps {
  graph: GraphDocument | null;
  /** Why the graph could not be loaded, if it could not. */
  error: string | null;
  /** The approval the conversation waits for, drawn over the graph. */
  proposal: ApprovalInterrupt | null;
  /** The items of the pending batch the reviewer has checked so far (null: all of them, or not a batch). */
  approvedItems?: readonly string[] | null;
  /** The pending proposal checked against this graph: what changed since it was made is outlined. */
  staleness?: ProposalStaleness | null;
  onReload: () => void;
  /** Attaches the selected nodes (the canvas selection) to the next message, as a pointer block. */
  onAttachSelection?: (nodeKeys: string[]) => void;
}

const NODE_TYPES: NodeTypes = { workflow: WorkflowNode };
/** Past this many nodes, only those in view are rendered. */
const VISIBLE_ONLY_ABOVE = 500;
/** The view is read-only: the built-in hints about deleting and dragging would mislead. */
const ARIA_LABELS = {
  'node.a11yDescription.default': 'Press Enter or Space to select the node and read its details below the graph.',
  'node.a11yDescription.keyboardDisabled':
    'Press Enter or Space to select the node and read its details below the graph.',
  'edge.a11yDescription.default': 'Press Enter or Space to select the edge and read its details below the graph.',
};

/**
 * The graph being discussed, one sheet at a time, laid out at its stored positions (xyflow); while an approval
 * waits, what it adds, changes and deletes is coloured on it, with a legend, and its sheet is opened; the items of a
 * batch the reviewer leaves out are drawn faded, and what changed since the proposal was made is outlined.
 */
export function GraphView({
  graph,
  error,
  proposal,
  approvedItems,
  staleness,
  onReload,
  onAttachSelection,
}: GraphViewProps) {
  const [chosenSheet, setChosenSheet] = useState<string | null>(null);
  const proposalHighlight = useMemo(() => (proposal ? highlightProposal(proposal) : null), [proposal]);
  const items = useMemo(() => (proposal ? reviewItems(proposal) : null), [proposal]);
  const highlight = useMemo(
    () =>
      proposalHighlight && items && approvedItems
        ? withDecisions(proposalHighlight, items, new Set(approvedItems))
        : proposalHighlight,
    [proposalHighlight, items, approvedItems],
  );
  const changedSince = useMemo(() => {
    const changed = staleness?.changed ?? [];
    const keys = (kind: 'node' | 'edge') =>
      new Set(changed.filter((part) => part.kind === kind).map((part) => part.key));
    return { nodes: keys('node'), edges: keys('edge'), lines: describeChanged(changed) };
  }, [staleness]);
  const sheets = graph ? Object.entries(graph.graph.sheetsList) : [];
  const sheetId = chosenSheet !== null && graph && chosenSheet in graph.graph.sheetsList ? chosenSheet : sheets[0]?.[0];

  // A new proposal opens the sheet it is about.
  useEffect(() => {
    if (proposalHighlight) setChosenSheet(proposalHighlight.sheetId);
  }, [proposalHighlight]);

  const needsLayout = graph !== null && sheetId !== undefined && sheetNeedsLayout(graph, sheetId);
  const { layout, layoutError } = useAutoLayout(needsLayout);
  const flow = useMemo(
    () =>
      graph && sheetId !== undefined && (!needsLayout || layout)
        ? sheetFlow(graph, sheetId, { highlight, layout, changedSince })
        : null,
    [graph, sheetId, highlight, needsLayout, layout, changedSince],
  );
  const counts = useMemo(() => (graph ? proposalCounts(graph, highlight) : null), [graph, highlight]);
  const headline = useMemo(
    () => (proposal ? describeProposal(proposal, graph?.graph.sheetsList).headline : ''),
    [proposal, graph],
  );

  return (
    <section className="pg-graph-view" aria-label="Graph view">
      <div className="pg-graph-view__bar">
        <div className="pg-sheets" role="group" aria-label="Sheets">
          {sheets.map(([id, name]) => {
            const changes = counts?.bySheet.get(id) ?? 0;
            return (
              <button
                key={id}
                type="button"
                aria-pressed={id === sheetId}
                onClick={() => setChosenSheet(id)}
                aria-label={changes > 0 ? `${name}, ${changes} proposed change${changes === 1 ? '' : 's'}` : name}
              >
                {name}
                {changes > 0 && (
                  <span className="pg-sheets__count" aria-hidden="true">
                    {changes}
                  </span>
                )}
              </button>
            );
          })}
        </div>
        <button type="button" onClick={onReload} disabled={!graph && !error}>
          Reload
        </button>
      </div>
      {highlight && counts && (
        <ProposalLegend
          headline={headline}
          counts={counts.byHighlight}
          changedSince={changedSince.lines}
          stale={staleness?.stale ?? false}
        />
      )}
      {flow && sheetId !== undefined ? (
        <SheetCanvas
          // A new sheet or a new proposal is fitted in view; a reload keeps the reader's zoom.
          key={`${sheetId}|${proposal?.toolCallId ?? ''}`}
          flow={flow}
          label={`Sheet ${graph?.graph.sheetsList[sheetId] ?? sheetId}`}
          proposal={highlight !== null}
          onAttachSelection={onAttachSelection}
        />
      ) : (
        <div className="pg-graph-view__canvas">
          <p className="pg-graph-view__empty pg-muted">
            {layoutError ?? (error ? 'No graph to show.' : graph ? 'Laying out the sheet…' : 'Loading the graph…')}
          </p>
        </div>
      )}
      <ArrowMarkers />
    </section>
  );
}

function SheetCanvas({
  flow,
  label,
  proposal,
  onAttachSelection,
}: {
  flow: SheetFlow;
  label: string;
  proposal: boolean;
  onAttachSelection?: (nodeKeys: string[]) => void;
}) {
  const [nodes, setNodes, onNodesChange] = useNodesState(flow.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState(flow.edges);

  // The graph was loaded again: new elements, the reader's selection kept.
  useEffect(() => {
    setNodes((current) => {
      const selected = new Set(current.filter((node) => node.selected).map((node) => node.id));
      return flow.nodes.map((node) => (selected.has(node.id) ? { ...node, selected: true } : node));
    });
    setEdges((current) => {
      const selected = new Set(current.filter((edge) => edge.selected).map((edge) => edge.id));
      return flow.edges.map((edge) => (selected.has(edge.id) ? { ...edge, selected: true } : edge));
    });
  }, [flow, setNodes, setEdges]);

  const selectedNode = nodes.find((node) => node.selected);
  const selectedEdge = edges.find((edge) => edge.selected);
  const selected: SelectedElement | null = selectedNode
    ? { kind: 'node', node: selectedNode }
    : selectedEdge
      ? { kind: 'edge', edge: selectedEdge }
      : null;
  // Nodes of the graph only: a proposal's ghosts are not in it yet.
  const selection = nodes.filter((node) => node.selected && !node.data.ghost).map((node) => node.data.nodeKey);

  return (
    <>
      <div className="pg-graph-view__canvas">
        {nodes.length === 0 && <p className="pg-graph-view__empty pg-muted">No nodes on this sheet.</p>}
        <ReactFlow
          aria-label={label}
          nodes={nodes}
          edges={edges}
          onNodesChange={onNodesChange}
          onEdgesChange={onEdgesChange}
          nodeTypes={NODE_TYPES}
          fitView
          fitViewOptions={{ padding: 0.12 }}
          minZoom={0.05}
          nodesDraggable={false}
          nodesConnectable={false}
          edgesReconnectable={false}
          deleteKeyCode={null}
          onlyRenderVisibleElements={nodes.length > VISIBLE_ONLY_ABOVE}
          ariaLabelConfig={ARIA_LABELS}
        >
          <Background gap={24} />
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
      <ElementDetails selected={selected} proposal={proposal} />
      {onAttachSelection && selection.length > 0 && (
        <button type="button" className="pg-attach" onClick={() => onAttachSelection(selection)}>
          Attach {selection.length === 1 ? `node ${selection[0]}` : `${selection.length} selected nodes`} to the message
        </button>
      )}
    </>
  );
}

/** Loads the automatic layout (and dagre with it) the first time a sheet needs it. */
function useAutoLayout(needed: boolean): { layout?: AutoLayout; layoutError: string | null } {
  const [layout, setLayout] = useState<AutoLayout>();
  const [layoutError, setLayoutError] = useState<string | null>(null);
  useEffect(() => {
    if (!needed || layout) return;
    let live = true;
    import('./auto-layout').then(
      (module) => live && setLayout(() => module.autoLayout),
      () => live && setLayoutError('The automatic layout could not be loaded: reload the page.'),
    );
    return () => {
      live = false;
    };
  }, [needed, layout]);
  return { layout, layoutError };
}

/** The arrowheads of the edges, one per highlight so each takes its edge's colour (edges name them in markerEnd). */
function ArrowMarkers() {
  return (
    <svg className="pg-markers" aria-hidden="true" focusable="false">
      <defs>
        {['', '-added', '-changed', '-deleted'].map((suffix) => (
          <marker
            key={suffix}
            id={`pg-arrow${suffix}`}
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto-start-reverse"
          >
            <path d="M0,0 L10,5 L0,10 z" className={`pg-arrow${suffix}`} />
          </marker>
        ))}
      </defs>
    </svg>
  );
}
