import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ProposalStaleness } from '../proposal-staleness';
import type { BlockSegment, ThreadChangeView } from '../protocol';
import { formatUsage } from '../usage-format';
import type { AIChatMessage, AIToolCall } from './ai-chat-message';
import { ChangeActions, ProposalOutcomeNote, RevertStatus } from './change-review';
import { changesByMessage, type MessageChanges } from './message-changes';
import type { RevertState } from './use-ai-chat';
import { AIChatInput, BlockChip } from './ai-chat-input';
import { pendingInterruptOf } from './chat-state';
import { AIInterruptModal } from './ai-interrupt-modal';
import { BotIcon, RetryIcon, Spinner, WrenchIcon } from './icons';

export interface AIChatPanelProps {
  messages: AIChatMessage[];
  isTyping: boolean;
  isConnected: boolean;
  threadId: string | null;
  onSend: (text: string, attached: BlockSegment[]) => void;
  /** Blocks attached from outside the composer's text (a canvas selection), shown as chips. */
  attached?: BlockSegment[];
  onRemoveAttached?: (index: number) => void;
  onStop: () => void;
  onResume: (threadId: string, approved: boolean, feedback?: string, answer?: string, approvedItems?: string[]) => void;
  /** Shows a Retry button on an answer that failed with a retryable error. */
  onRetry?: () => void;
  /** The graph's sheetsList, to name sheets in proposals. */
  sheets?: Record<string, string>;
  /** Usage and cost under each answer (default true). */
  showUsage?: boolean;
  title?: string;
  className?: string;
  /** The items of the pending batch the reviewer has checked, at each change (AIInterruptModal's `onItemsChange`). */
  onItemsChange?: (toolCallId: string, approvedItems: string[]) => void;
  /**
   * The thread's change log (`useAIChat().changes`): with `onUndo` and `onRestore`, answers that applied something
   * offer Undo (and Restore to here when later changes are in effect), and a revert's event offers to put back.
   */
  changes?: ThreadChangeView[];
  /** Undo the changes of the service's message (`useAIChat().undo`). */
  onUndo?: (messageId: string) => void;
  /** Restore the graph to what it was after the service's message (`useAIChat().restore`). */
  onRestore?: (messageId: string) => void;
  /** The last undo or restore (`useAIChat().revert`), shown under the messages. */
  revert?: RevertState | null;
  /** The pending proposal checked against the graph as it is now (`useProposalStaleness`), for the modal. */
  staleness?: ProposalStaleness | null;
  /** Enter sends while an answer streams (useAIChat's `canSendWhileTyping`). */
  sendWhileTyping?: boolean;
}

/** How close to the bottom (px) still counts as "at the bottom": the list follows new text only then. */
const STICK_THRESHOLD_PX = 48;

/**
 * The chat panel: header with the connection state, the messages (user right, assistant left) that
 * follow the stream while the reader is at the bottom, tool badges, the thinking indicator, the empty
 * state, Retry on retryable errors, usage per answer, and the interrupt modal for a pending proposal or question.
 */
export const AIChatPanel = memo(function AIChatPanel(props: AIChatPanelProps) {
  const {
    messages,
    isTyping,
    isConnected,
    threadId,
    onSend,
    onStop,
    onResume,
    onRetry,
    sheets,
    showUsage = true,
    title,
    onItemsChange,
    changes,
    onUndo,
    onRestore,
    revert,
    staleness,
    attached,
    onRemoveAttached,
    sendWhileTyping = false,
  } = props;
  const list = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const [dismissed, setDismissed] = useState<string | null>(null);

  const pending = pendingInterruptOf(messages, isTyping);
  const byMessage = useMemo(
    () => (changes && (onUndo || onRestore) ? changesByMessage(messages, changes) : null),
    [messages, changes, onUndo, onRestore],
  );
  const reverting = revert?.status === 'running';
  const modalOpen = pending !== null && threadId !== null && dismissed !== pending.toolCallId;

  useLayoutEffect(() => {
    const element = list.current;
    if (element && stick.current) element.scrollTop = element.scrollHeight;
  }, [messages, isTyping]);

  useEffect(() => {
    if (!pending) setDismissed(null);
  }, [pending]);

  const last = messages[messages.length - 1];
  const thinking =
    isTyping &&
    (!last ||
      last.role !== 'assistant' ||
      (last.content === '' && !last.toolCalls?.some((call) => call.status === 'running')));

  return (
    <section className={`gai-panel ${props.className ?? ''}`} aria-label={title ?? 'AI assistant'}>
      <header className="gai-panel__header">
        <BotIcon size={18} />
        <span className="gai-panel__title">{title ?? 'AI assistant'}</span>
        <span
          className={`gai-status ${isConnected ? 'gai-status--on' : ''}`}
          title={isConnected ? 'Connected' : 'Not connected'}
        >
          <span className="gai-status__dot" />
          {isConnected ? 'Connected' : 'Offline'}
        </span>
      </header>

      <div
        className="gai-panel__messages"
        ref={list}
        role="log"
        aria-live="polite"
        onScroll={(event) => {
          const element = event.currentTarget;
          stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < STICK_THRESHOLD_PX;
        }}
      >
        {messages.length === 0 && (
          <div className="gai-empty">
            <BotIcon size={40} />
            <p>Ask anything about this graph: what a node does, where data flows, or what to change.</p>
          </div>
        )}
        {messages.map((message) => (
          <MessageItem
            key={message.id}
            message={message}
            showUsage={showUsage}
            onRetry={!isTyping && message === last ? onRetry : undefined}
            onReview={message === last && pending && !modalOpen ? () => setDismissed(null) : undefined}
            changes={byMessage?.get(message.id)}
            onUndo={onUndo}
            onRestore={onRestore}
            busy={isTyping || reverting}
          />
        ))}
        {revert && <RevertStatus revert={revert} />}
        {thinking && (
          <div className="gai-thinking" role="status">
            <Spinner /> AI is thinking…
          </div>
        )}
      </div>

      <AIChatInput
        onSend={onSend}
        onStop={onStop}
        isTyping={isTyping}
        disabled={!isConnected && !isTyping}
        attached={attached}
        onRemoveAttached={onRemoveAttached}
        sendWhileTyping={sendWhileTyping}
      />

      {modalOpen && pending && threadId && (
        <AIInterruptModal
          interrupt={pending}
          threadId={threadId}
          onResume={onResume}
          onDismiss={() => setDismissed(pending.toolCallId)}
          sheets={sheets}
          onItemsChange={onItemsChange && ((approvedItems) => onItemsChange(pending.toolCallId, approvedItems))}
          staleness={staleness}
        />
      )}
    </section>
  );
});

const MessageItem = memo(function MessageItem({
  message,
  showUsage,
  onRetry,
  onReview,
  changes,
  onUndo,
  onRestore,
  busy,
}: {
  message: AIChatMessage;
  showUsage: boolean;
  onRetry?: () => void;
  onReview?: () => void;
  changes?: MessageChanges;
  onUndo?: (messageId: string) => void;
  onRestore?: (messageId: string) => void;
  busy: boolean;
}) {
  if (message.role === 'event') {
    return (
      <div className="gai-event" data-event={message.event?.type}>
        <span>{message.content}</span>
        {message.event?.results.map((result, index) => (
          <span key={index} className={result.ok ? 'gai-event__ok' : 'gai-event__failed'}>
            {result.ok ? '✓' : '✗'} {result.label}
            {!result.ok && result.detail ? `: ${result.detail}` : ''}
          </span>
        ))}
        {changes && <ChangeActions kind="revert" changes={changes} onUndo={onUndo} onRestore={onRestore} busy={busy} />}
      </div>
    );
  }
  const isUser = message.role === 'user';
  return (
    <div
      className={`gai-message ${isUser ? 'gai-message--user' : 'gai-message--assistant'}`}
      data-streaming={message.streaming ? 'true' : undefined}
    >
      {message.toolCalls && message.toolCalls.length > 0 && (
        <div className="gai-tools">
          {message.toolCalls.map((call) => (
            <ToolBadge key={call.toolCallId} call={call} />
          ))}
        </div>
      )}
      {message.segments ? (
        <div className="gai-message__text">
          {message.segments.map((segment, index) =>
            segment.type === 'text' ? (
              <span key={index}>{segment.text}</span>
            ) : (
              <BlockChip key={index} block={segment} />
            ),
          )}
        </div>
      ) : (
        message.content && <div className="gai-message__text">{message.content}</div>
      )}
      {message.toolCalls?.map((call) => (
        <ProposalOutcomeNote key={call.toolCallId} result={call.result} />
      ))}
      {changes && <ChangeActions kind="answer" changes={changes} onUndo={onUndo} onRestore={onRestore} busy={busy} />}
      {message.aborted && <div className="gai-message__note">Stopped</div>}
      {message.interrupt && (
        <div className="gai-message__note">
          {message.interrupt.kind === 'approval' ? 'Proposed a change' : 'Asked a question'}
          {message.interruptAnswered ? ' (answered)' : ''}
          {onReview && (
            <button type="button" className="gai-link" onClick={onReview}>
              Review
            </button>
          )}
        </div>
      )}
      {message.error && (
        <div className="gai-message__error" role="alert">
          <span>{message.error}</span>
          {message.retryable && onRetry && (
            <button type="button" className="gai-button gai-button--retry" onClick={onRetry}>
              <RetryIcon /> Retry
            </button>
          )}
        </div>
      )}
      {showUsage && message.usage && <div className="gai-message__usage">{formatUsage(message.usage)}</div>}
    </div>
  );
});

function ToolBadge({ call }: { call: AIToolCall }) {
  return (
    <span className={`gai-tool gai-tool--${call.status}`} title={call.result ? call.result.slice(0, 500) : 'running…'}>
      {call.status === 'running' ? <Spinner size={12} /> : <WrenchIcon size={12} />}
      {call.toolName}
      {call.status === 'done' && decisionOf(call.result)}
    </span>
  );
}

/** The decision of a proposal (on resume its tool result is `{"status": "approved" | "rejected" | ...}`). */
function decisionOf(result: string | undefined): string {
  if (!result || !result.startsWith('{')) return '';
  try {
    const status = (JSON.parse(result) as { status?: unknown }).status;
    return typeof status === 'string' && status !== 'ok' ? ` · ${status}` : '';
  } catch {
    return '';
  }
}
