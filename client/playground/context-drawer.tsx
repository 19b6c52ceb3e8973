import type { RagContextResponse, ThreadEvent } from '../src/protocol';

export interface ContextDrawerProps {
  question: string | null;
  context: RagContextResponse | null;
  loading: boolean;
  error: string | null;
  onClose: () => void;
  /** The last question's DATA_ADDED event: what its blocks (and mentions) loaded beyond the search. */
  dataAdded?: ThreadEvent | null;
}

/** "What the AI sees": POST /api/rag/context for the last question — the ranked nodes, the edges, the TOON text and its size. */
export function ContextDrawer({ question, context, loading, error, onClose, dataAdded }: ContextDrawerProps) {
  const attached = dataAdded?.results.filter((result) => /^(block|mention) /.test(result.label)) ?? [];
  return (
    <aside className="pg-drawer" aria-label="What the AI sees">
      <div className="pg-row pg-row--between">
        <h2>What the AI sees</h2>
        <button type="button" onClick={onClose} aria-label="Close">
          ×
        </button>
      </div>
      {!question && <p className="pg-muted">Ask a question: the context retrieved for it shows here.</p>}
      {question && (
        <p className="pg-muted">
          For: <q>{question}</q>
        </p>
      )}
      {attached.length > 0 && (
        <section aria-label="Attached to the question">
          <h3>Attached to the question</h3>
          <ul className="pg-attached">
            {attached.map((result, index) => (
              <li key={index} className={result.ok ? 'pg-attached__ok' : 'pg-attached__failed'}>
                {result.ok ? '✓' : '✗'} <strong>{result.label}</strong>
                {result.detail ? ` — ${result.detail}` : ''}
              </li>
            ))}
          </ul>
        </section>
      )}
      {loading && <p className="pg-muted">Retrieving…</p>}
      {error && <p className="pg-error">{error}</p>}
      {context && (
        <>
          <p>
            <strong>{context.tokenEstimate.toLocaleString()}</strong> tokens · {context.context.relevantNodes.length}{' '}
            nodes · {context.context.relevantEdges.length} edges · {context.context.retrieval.searchMode} search
            {context.context.retrieval.cacheHit ? ' (cached)' : ''} · {context.context.retrieval.durationMs.toFixed(1)}{' '}
            ms
          </p>
          <table className="pg-table">
            <thead>
              <tr>
                <th>node</th>
                <th>type</th>
                <th>sheet</th>
                <th>why</th>
              </tr>
            </thead>
            <tbody>
              {context.context.relevantNodes.map((node) => (
                <tr key={node._key}>
                  <td>{node._key}</td>
                  <td>{node.typeName}</td>
                  <td>{node.sheetName}</td>
                  <td>
                    {node.origin}
                    {node.score !== undefined ? ` ${node.score.toFixed(3)}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>As sent to the model (TOON)</h3>
          <pre className="pg-toon">{context.toon}</pre>
        </>
      )}
    </aside>
  );
}
