import { memo, useEffect, useId, useMemo, useRef, useState } from 'react';
import { reviewItems, unmetNeeds } from '../proposal-items';
import { describeChanged } from '../proposal-outcome';
import type { ProposalStaleness } from '../proposal-staleness';
import type { ApprovalInterrupt, Interrupt, QuestionInterrupt } from '../protocol';
import { ActionPreview } from './action-preview';
import { AlertIcon, QuestionIcon } from './icons';

export interface AIInterruptModalProps {
  /** The proposal (approval) or question the answer stopped on. The whole interrupt, not only its `proposedAction`: it also carries the preview. */
  interrupt: Interrupt;
  threadId: string;
  /**
   * Approve/reject with optional feedback; a question's answer goes in `answer`; a batch
   * approved in part names its approved items in `approvedItems`.
   */
  onResume: (threadId: string, approved: boolean, feedback?: string, answer?: string, approvedItems?: string[]) => void;
  /** Closes the modal without deciding (Escape); the interrupt stays pending. */
  onDismiss?: () => void;
  /** The graph's sheetsList, to name sheets in the preview. */
  sheets?: Record<string, string>;
  /**
   * A batch's items the reviewer has checked so far, at each change (all of them at first): e.g. to show on a graph
   * which parts would be applied and which declined.
   */
  onItemsChange?: (approvedItems: string[]) => void;
  /**
   * The proposal checked against the graph as it is now (`checkProposal`, `useProposalStaleness`): a stale proposal
   * cannot be approved (the service would apply nothing), only rejected or sent back; a batch's stale items are left
   * out, the others can still be approved.
   */
  staleness?: ProposalStaleness | null;
}

/**
 * A proposal shown readably (what is created, changed or deleted, on which
 * sheet; the raw JSON folded below) with Approve, Reject and a feedback field; a batch item by item, each with a
 * checkbox to approve only some; or a question (8.2) whose options are buttons (confirm: Yes / No).
 */
export const AIInterruptModal = memo(function AIInterruptModal({
  interrupt,
  threadId,
  onResume,
  onDismiss,
  sheets,
  onItemsChange,
  staleness,
}: AIInterruptModalProps) {
  const titleId = useId();
  const dialog = useRef<HTMLDivElement>(null);

  useEffect(() => {
    dialog.current?.querySelector<HTMLElement>('[data-autofocus]')?.focus();
  }, [interrupt]);

  return (
    <div className="gai-modal" role="presentation" onKeyDown={(event) => event.key === 'Escape' && onDismiss?.()}>
      <div className="gai-modal__card" role="dialog" aria-modal="true" aria-labelledby={titleId} ref={dialog}>
        {interrupt.kind === 'approval' ? (
          <ApprovalBody
            interrupt={interrupt}
            threadId={threadId}
            onResume={onResume}
            sheets={sheets}
            titleId={titleId}
            onItemsChange={onItemsChange}
            staleness={staleness ?? null}
          />
        ) : (
          <QuestionBody interrupt={interrupt} threadId={threadId} onResume={onResume} titleId={titleId} />
        )}
      </div>
    </div>
  );
});

function ApprovalBody({
  interrupt,
  threadId,
  onResume,
  sheets,
  titleId,
  onItemsChange,
  staleness,
}: {
  interrupt: ApprovalInterrupt;
  threadId: string;
  onResume: AIInterruptModalProps['onResume'];
  sheets?: Record<string, string>;
  titleId: string;
  onItemsChange?: AIInterruptModalProps['onItemsChange'];
  staleness: ProposalStaleness | null;
}) {
  const [feedback, setFeedback] = useState('');
  const items = useMemo(() => interrupt.preview.items ?? [], [interrupt]);
  const [approvedItems, setApprovedItems] = useState<ReadonlySet<string>>(
    () => new Set(items.map((item) => item.itemId)),
  );
  const onItemsChangeRef = useRef(onItemsChange);
  onItemsChangeRef.current = onItemsChange;
  const staleItems = staleness?.staleItems;
  // Another proposal in the same modal: every item checked again. An item found stale is unchecked (and locked).
  useEffect(() => setApprovedItems(new Set(items.map((item) => item.itemId))), [items]);
  useEffect(() => {
    if (staleItems && staleItems.size > 0)
      setApprovedItems((current) => new Set([...current].filter((itemId) => !staleItems.has(itemId))));
  }, [staleItems]);
  useEffect(() => {
    if (items.length > 0)
      onItemsChangeRef.current?.(items.filter((item) => approvedItems.has(item.itemId)).map((item) => item.itemId));
  }, [items, approvedItems]);
  const unmet = useMemo(() => {
    const parts = reviewItems(interrupt);
    return parts ? unmetNeeds(parts, approvedItems) : [];
  }, [interrupt, approvedItems]);
  const descriptions = new Map(items.map((item) => [item.itemId, item.description]));
  const partial = items.length > 0 && approvedItems.size < items.length;
  const decide = (approved: boolean) => {
    const text = feedback.trim() || undefined;
    if (approved && partial) {
      const chosen = items.filter((item) => approvedItems.has(item.itemId)).map((item) => item.itemId);
      onResume(threadId, true, text, undefined, chosen);
    } else onResume(threadId, approved, text);
  };
  const toggle = (itemId: string, approved: boolean) =>
    setApprovedItems((current) => {
      const next = new Set(current);
      if (approved) next.add(itemId);
      else next.delete(itemId);
      return next;
    });
  const stale = staleness?.stale === true;
  const changedLines = useMemo(() => describeChanged(staleness?.changed ?? []), [staleness]);
  const approveBlocked = stale || (items.length > 0 && approvedItems.size === 0) || unmet.length > 0;
  const sendBack = () =>
    onResume(
      threadId,
      false,
      feedback.trim() ||
        `The graph changed since this proposal was made (${changedLines.join('; ')}): propose again from the graph as it is now.`,
    );
  return (
    <>
      <header className="gai-modal__header">
        <AlertIcon size={18} />
        <h2 id={titleId}>The assistant proposes a change</h2>
      </header>
      <div className="gai-modal__body">
        {staleness && staleness.changed.length > 0 && (
          <div className={`gai-stale ${stale ? 'gai-stale--whole' : ''}`} role="alert">
            <strong>
              {stale
                ? 'Stale: the graph changed since this proposal was made. Approving it would apply nothing.'
                : `The graph changed since this proposal was made: ${staleItems?.size ?? 0} of its ${items.length} changes concern what changed, and are left out.`}
            </strong>
            <ul>
              {changedLines.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </div>
        )}
        <ActionPreview
          interrupt={interrupt}
          sheets={sheets}
          selection={
            items.length > 0 ? { approved: approvedItems, onToggle: toggle, stale: staleItems ?? undefined } : undefined
          }
        />
        {!stale && items.length > 0 && approvedItems.size === 0 && (
          <p className="gai-items__problem" role="status">
            No change is checked: check at least one to approve, or Reject the proposal.
          </p>
        )}
        {unmet.map((need) => (
          <p key={`${need.itemId}:${need.kind}:${need.key}`} className="gai-items__problem" role="status">
            {`${need.itemId} (${descriptions.get(need.itemId) ?? need.itemId}) needs ${need.kind} "${need.key}", which ${need.creator} creates: check ${need.creator} too, or leave ${need.itemId} out.`}
          </p>
        ))}
        <details className="gai-modal__raw">
          <summary>Raw proposal (JSON)</summary>
          <pre>{JSON.stringify({ proposedAction: interrupt.proposedAction, preview: interrupt.preview }, null, 2)}</pre>
        </details>
        <label className="gai-modal__feedback">
          <span>Feedback for the assistant (optional)</span>
          <textarea
            value={feedback}
            rows={2}
            onChange={(event) => setFeedback(event.target.value)}
            placeholder="e.g. put it on the data-processing sheet instead"
          />
        </label>
      </div>
      <footer className="gai-modal__footer">
        <button type="button" className="gai-button gai-button--reject" onClick={() => decide(false)}>
          Reject
        </button>
        {stale ? (
          <button type="button" className="gai-button gai-button--approve" onClick={sendBack} data-autofocus>
            Ask for a new proposal
          </button>
        ) : (
          <button
            type="button"
            className="gai-button gai-button--approve"
            onClick={() => decide(true)}
            disabled={approveBlocked}
            data-autofocus
          >
            {partial ? `Approve ${approvedItems.size} of ${items.length}` : 'Approve'}
          </button>
        )}
      </footer>
    </>
  );
}

function QuestionBody({
  interrupt,
  threadId,
  onResume,
  titleId,
}: {
  interrupt: QuestionInterrupt;
  threadId: string;
  onResume: AIInterruptModalProps['onResume'];
  titleId: string;
}) {
  return (
    <>
      <header className="gai-modal__header">
        <QuestionIcon size={18} />
        <h2 id={titleId}>{interrupt.estimate ? 'Send this large question?' : 'The assistant asks'}</h2>
      </header>
      <div className="gai-modal__body">
        <p className="gai-question">{interrupt.question}</p>
      </div>
      <footer className="gai-modal__footer gai-modal__footer--options">
        {interrupt.questionKind === 'confirm' ? (
          <>
            <button type="button" className="gai-button gai-button--reject" onClick={() => onResume(threadId, false)}>
              No
            </button>
            <button
              type="button"
              className="gai-button gai-button--approve"
              onClick={() => onResume(threadId, true)}
              data-autofocus
            >
              Yes
            </button>
          </>
        ) : (
          <>
            {(interrupt.options ?? []).map((option, index) => (
              <button
                key={option}
                type="button"
                className="gai-button gai-button--option"
                onClick={() => onResume(threadId, true, undefined, option)}
                {...(index === 0 ? { 'data-autofocus': true } : {})}
              >
                {option}
              </button>
            ))}
            <button type="button" className="gai-button gai-button--ghost" onClick={() => onResume(threadId, false)}>
              Decline to answer
            </button>
          </>
        )}
      </footer>
    </>
  );
}
