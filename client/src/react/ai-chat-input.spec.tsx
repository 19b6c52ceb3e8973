/** @jest-environment jsdom */
import { fireEvent, render, screen } from '@testing-library/react';
import { pointerToNodes } from '../compose-segments';
import { AIChatInput } from './ai-chat-input';

describe(AIChatInput.name, () => {
  it('sends the trimmed text on Enter and clears the field; Shift+Enter does not send', () => {
    const onSend = jest.fn();
    render(<AIChatInput onSend={onSend} onStop={jest.fn()} isTyping={false} />);
    const field = screen.getByLabelText('Message') as HTMLTextAreaElement;
    fireEvent.change(field, { target: { value: 'first line' } });
    fireEvent.keyDown(field, { key: 'Enter', shiftKey: true });
    expect(onSend).not.toHaveBeenCalled();
    fireEvent.change(field, { target: { value: '  first line\nsecond line  ' } });
    fireEvent.keyDown(field, { key: 'Enter' });
    expect(onSend).toHaveBeenCalledWith('first line\nsecond line', []);
    expect(field.value).toBe('');
  });

  it('sends nothing blank, nor while disabled', () => {
    const onSend = jest.fn();
    const { rerender } = render(<AIChatInput onSend={onSend} onStop={jest.fn()} isTyping={false} />);
    fireEvent.change(screen.getByLabelText('Message'), { target: { value: '   ' } });
    fireEvent.keyDown(screen.getByLabelText('Message'), { key: 'Enter' });
    expect((screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement).disabled).toBe(true);
    rerender(<AIChatInput onSend={onSend} onStop={jest.fn()} isTyping={false} disabled />);
    fireEvent.change(screen.getByLabelText('Message'), { target: { value: 'hello' } });
    fireEvent.keyDown(screen.getByLabelText('Message'), { key: 'Enter' });
    expect(onSend).not.toHaveBeenCalled();
  });

  it('shows the blocks written in the text and the attached ones as chips; an attached chip can be removed', () => {
    const onSend = jest.fn();
    const onRemove = jest.fn();
    const selection = pointerToNodes(['root', 'fetch-api']);
    render(
      <AIChatInput
        onSend={onSend}
        onStop={jest.fn()}
        isTyping={false}
        attached={[selection]}
        onRemoveAttached={onRemove}
      />,
    );
    const field = screen.getByLabelText('Message');
    fireEvent.change(field, { target: { value: 'Why does @fetch-api fail with /use filter' } });
    const chips = screen.getByLabelText('Attached blocks');
    expect(chips.textContent).toBe('pointer · fetch-apiuse · filterpointer · root, fetch-api×');
    fireEvent.click(screen.getByRole('button', { name: 'Remove pointer · root, fetch-api' }));
    expect(onRemove).toHaveBeenCalledWith(0);
    fireEvent.keyDown(field, { key: 'Enter' });
    expect(onSend).toHaveBeenCalledWith('Why does @fetch-api fail with /use filter', [selection]);
  });

  it('turns Send into Stop while the answer streams', () => {
    const onStop = jest.fn();
    render(<AIChatInput onSend={jest.fn()} onStop={onStop} isTyping />);
    expect(screen.queryByRole('button', { name: 'Send' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    expect(onStop).toHaveBeenCalledTimes(1);
  });
});
