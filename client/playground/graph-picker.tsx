import { useState } from 'react';
import type { GraphDocument } from '../src/protocol';

export interface GraphPickerProps {
  graphKey: string;
  graph: GraphDocument | null;
  error: string | null;
  recent: string[];
  onPick: (graphKey: string) => void;
}

/** Chooses the graph to talk about by key (recent keys offered), and shows what was loaded. */
export function GraphPicker({ graphKey, graph, error, recent, onPick }: GraphPickerProps) {
  const [draft, setDraft] = useState(graphKey);
  const options = [...new Set([...recent, 'nba-workflow'])];
  return (
    <section className="pg-section">
      <h2>Graph</h2>
      <form
        className="pg-row"
        onSubmit={(event) => {
          event.preventDefault();
          if (draft.trim()) onPick(draft.trim());
        }}
      >
        <input
          list="pg-graphs"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          aria-label="Graph key"
          placeholder="graph key"
        />
        <datalist id="pg-graphs">
          {options.map((key) => (
            <option key={key} value={key} />
          ))}
        </datalist>
        <button type="submit">Open</button>
      </form>
      {error && <p className="pg-error">{error}</p>}
      {graph && (
        <div className="pg-graph">
          <strong>{graph.graph.name}</strong>
          {graph.graph.description && <p>{graph.graph.description}</p>}
          <p className="pg-muted">
            {graph.nodes.length} nodes · {graph.edges.length} edges · sheets{' '}
            {Object.values(graph.graph.sheetsList).join(', ')}
          </p>
        </div>
      )}
    </section>
  );
}
