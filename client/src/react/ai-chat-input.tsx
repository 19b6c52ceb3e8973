import { memo, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { blockLabel, composerBlocks } from '../compose-segments';
import type { BlockSegment } from '../protocol';
import { SendIcon, StopIcon } from './icons';

export interface AIChatInputProps {
  /** The text, and the attached blocks sent with it (docs/protocol.md §9.6). */
  onSend: (text: string, attached: BlockSegment[]) => void;
  onStop: () => void;
  /** The assistant is answering: the button is Stop. */
  isTyping: boolean;
  /** e.g. while disconnected. */
  disabled?: boolean;
  /** Enter sends while the answer streams too (useAIChat with a `multitaskStrategy`); the button stays Stop. */
  sendWhileTyping?: boolean;
  placeholder?: string;
  /** Blocks attached from outside the text (a canvas selection), shown as chips; sent with the next message. */
  attached?: BlockSegment[];
  /** Removes an attached block (its chip's ×); absent: attached chips cannot be removed here. */
  onRemoveAttached?: (index: number) => void;
}

/** Tallest the textarea grows before it scrolls. */
const MAX_HEIGHT_PX = 120;

/**
 * A textarea that grows with its text; Enter sends, Shift+Enter makes a new line (never while an
 * input method composes); the Send button becomes Stop while the answer streams.
 */
export const AIChatInput = memo(function AIChatInput({
  onSend,
  onStop,
  isTyping,
  disabled = false,
  placeholder,
  attached = [],
  onRemoveAttached,
  sendWhileTyping = false,
}: AIChatInputProps) {
  const [text, setText] = useState('');
  const written = useMemo(() => composerBlocks(text), [text]);
  const textarea = useRef<HTMLTextAreaElement>(null);

  useLayoutEffect(() => {
    const element = textarea.current;
    if (!element) return;
    element.style.height = 'auto';
    element.style.height = `${Math.min(element.scrollHeight, MAX_HEIGHT_PX)}px`;
    element.style.overflowY = element.scrollHeight > MAX_HEIGHT_PX ? 'auto' : 'hidden';
  }, [text]);

  const canSend = !disabled && (!isTyping || sendWhileTyping) && (text.trim().length > 0 || attached.length > 0);
  const send = () => {
    if (!canSend) return;
    onSend(text.trim(), attached);
    setText('');
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    send();
  };

  return (
    <div className="gai-input">
      {(written.length > 0 || attached.length > 0) && (
        <div className="gai-chips" aria-label="Attached blocks">
          {written.map((block, index) => (
            <BlockChip key={`w${index}`} block={block} />
          ))}
          {attached.map((block, index) => (
            <BlockChip
              key={`a${index}`}
              block={block}
              onRemove={onRemoveAttached ? () => onRemoveAttached(index) : undefined}
            />
          ))}
        </div>
      )}
      <textarea
        ref={textarea}
        className="gai-input__text"
        rows={1}
        value={text}
        placeholder={placeholder ?? 'Ask about this graph… (@node, /use type, /create type, /modify node)'}
        title="Enter sends, Shift+Enter makes a new line. @node or @sheet:1 points at the graph; /use, /create and /modify attach a node type or a node"
        aria-label="Message"
        disabled={disabled}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {isTyping ? (
        <button
          type="button"
          className="gai-button gai-button--stop"
          onClick={onStop}
          aria-label="Stop"
          title="Stop the answer"
        >
          <StopIcon />
          <span>Stop</span>
        </button>
      ) : (
        <button
          type="button"
          className="gai-button gai-button--send"
          onClick={send}
          disabled={!canSend}
          aria-label="Send"
          title="Send (Enter)"
        >
          <SendIcon />
          <span>Send</span>
        </button>
      )}
    </div>
  );
});

/** One block as a chip: its kind and preview (the readable text the model sees in the marker). */
export function BlockChip({ block, onRemove }: { block: BlockSegment; onRemove?: () => void }) {
  return (
    <span className={`gai-chip gai-chip--${block.block}`} data-block={block.block} title={JSON.stringify(block.config)}>
      {blockLabel(block)}
      {onRemove && (
        <button
          type="button"
          className="gai-chip__remove"
          onClick={onRemove}
          aria-label={`Remove ${blockLabel(block)}`}
        >
          ×
        </button>
      )}
    </span>
  );
}
