import { memo } from 'react';
import { describeProposal } from '../protocol';
import type { ApprovalInterrupt } from '../protocol';

const EFFECT_LABEL = { create: 'Create', update: 'Change', move: 'Move', delete: 'Delete' } as const;

/** A proposal in words: the headline (what, on which sheet), the reason, then each change with its details. */
export const ActionPreview = memo(function ActionPreview({
  interrupt,
  sheets,
}: {
  interrupt: ApprovalInterrupt;
  sheets?: Record<string, string>;
}) {
  const description = describeProposal(interrupt, sheets);
  return (
    <div className="gai-preview">
      <p className="gai-preview__headline">{description.headline}</p>
      {description.reason && (
        <p className="gai-preview__reason">
          <strong>Why: </strong>
          {description.reason}
        </p>
      )}
      <ul className="gai-preview__changes">
        {description.changes.map((change, index) => (
          <li
            key={`${change.effect}:${change.subject}:${change.key}:${index}`}
            className={`gai-change gai-change--${change.effect}`}
          >
            <span className="gai-change__effect">{EFFECT_LABEL[change.effect]}</span>
            <span className="gai-change__summary">{change.summary}</span>
            {change.details.length > 0 && <pre className="gai-change__details">{change.details.join('\n')}</pre>}
          </li>
        ))}
      </ul>
    </div>
  );
});
