import type { Highlight } from './proposal-highlight';

const ENTRIES: Array<{ highlight: Highlight; label: string }> = [
  { highlight: 'added', label: 'Added' },
  { highlight: 'changed', label: 'Changed or moved' },
  { highlight: 'deleted', label: 'Deleted' },
];

/** What the colours on the graph mean while a proposal waits, with how many elements each one marks. */
export function ProposalLegend({
  headline,
  counts,
  changedSince = [],
  stale = false,
}: {
  headline: string;
  counts: Record<Highlight, number>;
  /** What changed in the graph since the proposal was made, one line each. */
  changedSince?: string[];
  /** Nothing of the proposal can be applied any more. */
  stale?: boolean;
}) {
  return (
    <div className="pg-legend" role="group" aria-label="Proposed changes">
      <span className="pg-legend__headline">
        {stale ? 'Stale proposal' : 'Proposal'}: {headline}
      </span>
      <ul>
        {ENTRIES.map(({ highlight, label }) => (
          <li key={highlight} className={`pg-legend__item pg-legend__item--${highlight}`}>
            <span className="pg-legend__swatch" aria-hidden="true" />
            {label} <strong>{counts[highlight]}</strong>
          </li>
        ))}
      </ul>
      {changedSince.length > 0 && (
        <span className="pg-legend__stale">Changed since it was made (outlined): {changedSince.join('; ')}</span>
      )}
    </div>
  );
}
