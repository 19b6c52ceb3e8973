import type { Highlight } from './proposal-highlight';

const ENTRIES: Array<{ highlight: Highlight; label: string }> = [
  { highlight: 'added', label: 'Added' },
  { highlight: 'changed', label: 'Changed or moved' },
  { highlight: 'deleted', label: 'Deleted' },
];

/** What the colours on the graph mean while a proposal waits, with how many elements each one marks. */
export function ProposalLegend({ headline, counts }: { headline: string; counts: Record<Highlight, number> }) {
  return (
    <div className="pg-legend" role="group" aria-label="Proposed changes">
      <span className="pg-legend__headline">Proposal: {headline}</span>
      <ul>
        {ENTRIES.map(({ highlight, label }) => (
          <li key={highlight} className={`pg-legend__item pg-legend__item--${highlight}`}>
            <span className="pg-legend__swatch" aria-hidden="true" />
            {label} <strong>{counts[highlight]}</strong>
          </li>
        ))}
      </ul>
    </div>
  );
}
