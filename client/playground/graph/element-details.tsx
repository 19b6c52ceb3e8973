import type { WorkflowFlowEdge, WorkflowFlowNode } from './graph-flow';
import { markLabel } from './proposal-highlight';

export type SelectedElement = { kind: 'node'; node: WorkflowFlowNode } | { kind: 'edge'; edge: WorkflowFlowEdge };

/** The selected node or edge, and what the pending proposal does to it, in words (for readers and keyboards). */
export function ElementDetails({ selected, proposal }: { selected: SelectedElement | null; proposal: boolean }) {
  const mark = selected?.kind === 'node' ? selected.node.data.mark : selected?.edge.data?.mark;
  return (
    <div className="pg-details" aria-live="polite">
      {!selected && (
        <p className="pg-muted">
          {proposal
            ? 'Select a node or an edge (click it, or Tab to it and press Enter) to read what the proposal does to it.'
            : 'Select a node or an edge (click it, or Tab to it and press Enter) to see what it is.'}
        </p>
      )}
      {selected?.kind === 'node' && (
        <p>
          <strong>{selected.node.data.nodeKey}</strong> · {selected.node.data.typeLabel}
          {selected.node.data.ghost === 'created' ? ' · not in the graph yet' : ''}
          {selected.node.data.ghost === 'moved' ? ' · where the proposal moves it' : ''}
        </p>
      )}
      {selected?.kind === 'edge' && (
        <p>
          <strong>{selected.edge.id}</strong> · {selected.edge.source} → {selected.edge.target}
          {typeof selected.edge.label === 'string' ? ` · "${selected.edge.label}"` : ''}
        </p>
      )}
      {selected && mark && (
        <>
          <p className={`pg-details__mark pg-details__mark--${mark.highlight}`}>{markLabel(mark)}</p>
          <ul className="pg-details__changes">
            {mark.changes.map((change, index) => (
              <li key={index}>
                {change.summary}
                {change.details.length > 0 && <pre>{change.details.join('\n')}</pre>}
              </li>
            ))}
          </ul>
        </>
      )}
      {selected && !mark && proposal && <p className="pg-muted">The proposal does not touch it.</p>}
    </div>
  );
}
