import { memo } from 'react';
import { describeChanged, proposalOutcomeOf } from '../proposal-outcome';
import type { ActionConversionResult } from '../protocol';
import { describeRefused } from '../revert-outcome';
import type { MessageChanges } from './message-changes';
import type { RevertState } from './use-ai-chat';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** How many nodes and edges a change set touches. */
function touched(changes: ActionConversionResult): number {
  return (
    changes.nodesToCreate.length +
    changes.edgesToCreate.length +
    new Set(changes.instructions.map((instruction) => instruction.nodeKey)).size +
    changes.nodeKeysToDelete.length +
    changes.edgeKeysToDelete.length
  );
}

/**
 * What became of a proposal, under the answer that shows its call (docs/protocol.md §9.2, §9.3): nothing applied
 * because the graph changed since (with what changed), part of a batch applied (which items, which declined), or a
 * failure. A plain approval or rejection is the call's badge alone.
 */
export const ProposalOutcomeNote = memo(function ProposalOutcomeNote({ result }: { result?: string }) {
  const outcome = proposalOutcomeOf(result);
  if (!outcome) return null;
  if (outcome.status === 'stale') {
    const changed = describeChanged(outcome.changed ?? []);
    return (
      <div className="gai-outcome gai-outcome--stale" role="note">
        <strong>Not applied: the graph changed since this proposal was made.</strong>
        {changed.length > 0 && (
          <>
            <span> Changed since:</span>
            <ul>
              {changed.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </>
        )}
      </div>
    );
  }
  const declined = outcome.declinedItems ?? [];
  if (outcome.status === 'approved' && declined.length > 0) {
    const applied = outcome.appliedItems ?? [];
    return (
      <div className="gai-outcome" role="note">
        <strong>
          Applied {applied.length} of {applied.length + declined.length} changes.
        </strong>
        <ul>
          {applied.map((item) => (
            <li key={item.itemId} className="gai-outcome__applied">
              ✓ {item.description}
            </li>
          ))}
          {declined.map((item) => (
            <li key={item.itemId} className="gai-outcome__declined">
              ✗ {item.description} (declined)
            </li>
          ))}
        </ul>
      </div>
    );
  }
  if (outcome.status === 'failed')
    return (
      <div className="gai-outcome gai-outcome--failed" role="note">
        <strong>Not applied.</strong> {outcome.message}
      </div>
    );
  return null;
});

/**
 * Undo and restore from a message: under an answer whose changes are in the graph, Undo (and Restore to here when
 * later answers' changes are in effect too), or that they were undone; under a revert's event still in effect, Put
 * back.
 */
export function ChangeActions({
  kind,
  changes,
  onUndo,
  onRestore,
  busy,
}: {
  kind: 'answer' | 'revert';
  changes: MessageChanges;
  onUndo?: (messageId: string) => void;
  onRestore?: (messageId: string) => void;
  busy: boolean;
}) {
  const { messageId, inEffect, laterInEffect } = changes;
  if (kind === 'revert') {
    if (inEffect.length === 0 || !onUndo) return null;
    return (
      <button
        type="button"
        className="gai-link"
        disabled={busy}
        onClick={() => onUndo(messageId)}
        aria-label="Put back what this undo reverted"
      >
        Put back
      </button>
    );
  }
  if (inEffect.length === 0) return <div className="gai-message__note gai-changes">Its changes were undone</div>;
  const count = inEffect.reduce((sum, change) => sum + touched(change.changes), 0);
  return (
    <div className="gai-message__note gai-changes" role="group" aria-label="Changes of this answer">
      <span>Applied: {plural(count, 'change')}</span>
      {onUndo && (
        <button
          type="button"
          className="gai-link"
          disabled={busy}
          onClick={() => onUndo(messageId)}
          aria-label="Undo the changes of this answer"
        >
          Undo
        </button>
      )}
      {onRestore && laterInEffect > 0 && (
        <button
          type="button"
          className="gai-link"
          disabled={busy}
          onClick={() => onRestore(messageId)}
          aria-label={`Restore the graph to this answer (reverts ${plural(laterInEffect, 'later operation')})`}
        >
          Restore to here
        </button>
      )}
    </div>
  );
}

const RUNNING: Record<RevertState['kind'], string> = { undo: 'Undoing…', restore: 'Restoring…' };

/** The last undo or restore: running, what it reverted with each part it kept (and why), or why it failed. */
export function RevertStatus({ revert }: { revert: RevertState }) {
  if (revert.status === 'running')
    return (
      <div className="gai-revert" role="status">
        {RUNNING[revert.kind]}
      </div>
    );
  if (revert.status === 'failed')
    return (
      <div className="gai-revert gai-revert--failed" role="alert">
        Could not {revert.kind}: {revert.error.error}
      </div>
    );
  const kept = describeRefused(revert.result.refused);
  return (
    <div className="gai-revert" role="status">
      <span>{revert.result.event.summary}</span>
      {kept.length > 0 && (
        <ul className="gai-revert__kept">
          {kept.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
