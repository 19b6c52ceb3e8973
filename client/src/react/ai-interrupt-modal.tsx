import { memo, useEffect, useId, useRef, useState } from 'react';
import type { ApprovalInterrupt, Interrupt, QuestionInterrupt } from '../protocol';
import { ActionPreview } from './action-preview';
import { AlertIcon, QuestionIcon } from './icons';

export interface AIInterruptModalProps {
  /** The proposal (approval) or question the answer stopped on. Seed 000 passes `proposedAction`; the interrupt also carries its preview. */
  interrupt: Interrupt;
  threadId: string;
  /** Approve/reject with optional feedback; a question's answer goes in `answer` (docs/protocol.md §8.2). */
  onResume: (threadId: string, approved: boolean, feedback?: string, answer?: string) => void;
  /** Closes the modal without deciding (Escape); the interrupt stays pending. */
  onDismiss?: () => void;
  /** The graph's sheetsList, to name sheets in the preview. */
  sheets?: Record<string, string>;
}

/**
 * Seed 000 AIInterruptModal: a proposal shown readably (what is created, changed or deleted, on which
 * sheet; the raw JSON folded below) with Approve, Reject and a feedback field; or a question (8.2) whose
 * options are buttons (confirm: Yes / No).
 */
export const AIInterruptModal = memo(function AIInterruptModal({
  interrupt,
  threadId,
  onResume,
  onDismiss,
  sheets,
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
}: {
  interrupt: ApprovalInterrupt;
  threadId: string;
  onResume: AIInterruptModalProps['onResume'];
  sheets?: Record<string, string>;
  titleId: string;
}) {
  const [feedback, setFeedback] = useState('');
  const decide = (approved: boolean) => onResume(threadId, approved, feedback.trim() || undefined);
  return (
    <>
      <header className="gai-modal__header">
        <AlertIcon size={18} />
        <h2 id={titleId}>The assistant proposes a change</h2>
      </header>
      <div className="gai-modal__body">
        <ActionPreview interrupt={interrupt} sheets={sheets} />
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
        <button type="button" className="gai-button gai-button--approve" onClick={() => decide(true)} data-autofocus>
          Approve
        </button>
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
        <h2 id={titleId}>The assistant asks</h2>
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
