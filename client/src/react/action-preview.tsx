import { memo, useMemo } from 'react';
import { reviewItems } from '../proposal-items';
import { describeChanges, describeProposal } from '../protocol';
import type { ApprovalInterrupt, ProposalItem } from '../protocol';

const EFFECT_LABEL = { create: 'Create', update: 'Change', move: 'Move', delete: 'Delete' } as const;
const EFFECT_OF_ITEM: Record<ProposalItem['type'], keyof typeof EFFECT_LABEL> = {
  create_node: 'create',
  create_edge: 'create',
  update_node: 'update',
  move_node: 'move',
  delete_node: 'delete',
  delete_edge: 'delete',
};

/** The reviewer's choice among the items of a batch: those approved, and how to change it. */
export interface ItemSelection {
  approved: ReadonlySet<string>;
  onToggle: (itemId: string, approved: boolean) => void;
  /** Items that concern what changed in the graph since the proposal: shown as such, and not to be checked. */
  stale?: ReadonlySet<string>;
}

/**
 * A proposal in words: the headline (what, on which sheet), the reason, then each change with its details. A batch
 * whose preview lists its items (docs/protocol.md §9.3), given a `selection`, is shown item by item, each with a
 * checkbox: the reviewer applies some of them and declines the others.
 */
export const ActionPreview = memo(function ActionPreview({
  interrupt,
  sheets,
  selection,
}: {
  interrupt: ApprovalInterrupt;
  sheets?: Record<string, string>;
  selection?: ItemSelection;
}) {
  const description = describeProposal(interrupt, sheets);
  const items = interrupt.preview.items;
  return (
    <div className="gai-preview">
      <p className="gai-preview__headline">{description.headline}</p>
      {description.reason && (
        <p className="gai-preview__reason">
          <strong>Why: </strong>
          {description.reason}
        </p>
      )}
      {items && items.length > 0 && selection ? (
        <ItemList interrupt={interrupt} sheets={sheets} selection={selection} />
      ) : (
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
      )}
    </div>
  );
});

function ItemList({
  interrupt,
  sheets,
  selection,
}: {
  interrupt: ApprovalInterrupt;
  sheets?: Record<string, string>;
  selection: ItemSelection;
}) {
  const items = interrupt.preview.items ?? [];
  const details = useMemo(() => {
    const parts = reviewItems(interrupt);
    return new Map(
      (parts ?? []).map((item) => [
        item.itemId,
        describeChanges(item.changes, sheets).flatMap((change) => change.details),
      ]),
    );
  }, [interrupt, sheets]);
  return (
    <fieldset className="gai-items">
      <legend>
        Changes to apply: {selection.approved.size} of {items.length}
      </legend>
      <ul className="gai-preview__changes">
        {items.map((item) => {
          const effect = EFFECT_OF_ITEM[item.type];
          const approved = selection.approved.has(item.itemId);
          const stale = selection.stale?.has(item.itemId) ?? false;
          const lines = details.get(item.itemId) ?? [];
          return (
            <li
              key={item.itemId}
              className={`gai-change gai-change--${effect} ${approved ? '' : 'gai-change--declined'}`}
              data-item={item.itemId}
            >
              <label className="gai-item">
                <input
                  type="checkbox"
                  checked={approved}
                  disabled={stale}
                  onChange={(event) => selection.onToggle(item.itemId, event.target.checked)}
                />
                <span className="gai-change__effect">{EFFECT_LABEL[effect]}</span>
                <span className="gai-change__summary">{item.description}</span>
                {stale ? (
                  <span className="gai-item__stale"> (changed since: cannot be applied)</span>
                ) : (
                  !approved && <span className="gai-item__declined"> (declined)</span>
                )}
              </label>
              {lines.length > 0 && <pre className="gai-change__details">{lines.join('\n')}</pre>}
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}
