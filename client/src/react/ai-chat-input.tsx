import { memo, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { SendIcon, StopIcon } from './icons';

export interface AIChatInputProps {
  onSend: (text: string) => void;
  onStop: () => void;
  /** The assistant is answering: the button is Stop. */
  isTyping: boolean;
  /** e.g. while disconnected. */
  disabled?: boolean;
  placeholder?: string;
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
}: AIChatInputProps) {
  const [text, setText] = useState('');
  const textarea = useRef<HTMLTextAreaElement>(null);

  useLayoutEffect(() => {
    const element = textarea.current;
    if (!element) return;
    element.style.height = 'auto';
    element.style.height = `${Math.min(element.scrollHeight, MAX_HEIGHT_PX)}px`;
    element.style.overflowY = element.scrollHeight > MAX_HEIGHT_PX ? 'auto' : 'hidden';
  }, [text]);

  const canSend = !disabled && !isTyping && text.trim().length > 0;
  const send = () => {
    if (!canSend) return;
    onSend(text.trim());
    setText('');
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    send();
  };

  return (
    <div className="gai-input">
      <textarea
        ref={textarea}
        className="gai-input__text"
        rows={1}
        value={text}
        placeholder={placeholder ?? 'Ask about this graph…'}
        title="Enter sends, Shift+Enter makes a new line"
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
