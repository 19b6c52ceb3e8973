/** @jest-environment jsdom */
import { fireEvent, render, screen } from '@testing-library/react';
import type { ApprovalInterrupt, QuestionInterrupt } from '../protocol';
import { AIInterruptModal } from './ai-interrupt-modal';

const batch: ApprovalInterrupt = {
  kind: 'approval',
  toolCallId: 'call_batch',
  proposedAction: {
    type: 'batch',
    reason: 'Log the fetch errors and drop the stale note',
    payload: {
      actions: [
        {
          type: 'create_node',
          payload: { nodeKey: 'log-errors', typeKey: 'log-node', sheet: '0', posX: 820, posY: 300 },
          reason: 'log',
        },
        {
          type: 'create_edge',
          payload: {
            sourceKey: 'fetch-api',
            sourceHandle: 'R-1',
            targetKey: 'log-errors',
            targetHandle: 'L-0',
            sheet: '0',
          },
          reason: 'wire',
        },
        {
          type: 'update_node',
          payload: { nodeKey: 'fetch-api', changes: { 'data.timeoutMs': 10000 } },
          reason: 'slow API',
        },
        { type: 'delete_node', payload: { nodeKey: 'disconnected-note' }, reason: 'stale' },
      ],
    },
  },
  preview: {
    basis: { graphRevision: '1', nodes: {}, edges: {} },
    sheetId: '0',
    nodesToCreate: [
      {
        _key: 'log-errors',
        graphKey: 'nba-workflow',
        type: 'log-node',
        sheet: '0',
        posX: 820,
        posY: 300,
        process: 'console.error(input);\nreturn input;',
      },
    ],
    edgesToCreate: [
      {
        _key: 'ai_1',
        graphKey: 'nba-workflow',
        sheet: '0',
        source: 'fetch-api',
        sourceHandle: 'R-1',
        target: 'log-errors',
        targetHandle: 'L-0',
      },
    ],
    instructions: [
      { nodeKey: 'fetch-api', op: 'set', path: ['data', 'timeoutMs'], value: 10000, triggerHtmlRender: true },
    ],
    nodeKeysToDelete: ['disconnected-note'],
    edgeKeysToDelete: [],
  },
};

describe(AIInterruptModal.name, () => {
  it('shows the proposal readably: what is created, changed and deleted, on which sheet, with the reason', () => {
    render(
      <AIInterruptModal
        interrupt={batch}
        threadId="ai_t"
        onResume={jest.fn()}
        sheets={{ '0': 'main', '1': 'data-processing' }}
      />,
    );
    const dialog = screen.getByRole('dialog');
    expect(dialog.textContent).toContain('Creates 1 node and 1 edge, changes 1 node and deletes 1 node on sheet main');
    expect(dialog.textContent).toContain('Log the fetch errors and drop the stale note');
    expect(screen.getByText('New log-node node "log-errors"')).toBeTruthy();
    expect(dialog.textContent).toContain('position: (820, 300)');
    expect(dialog.textContent).toContain('console.error(input);');
    expect(screen.getByText('New edge fetch-api:R-1 → log-errors:L-0')).toBeTruthy();
    expect(screen.getByText('Node "fetch-api": data.timeoutMs changed')).toBeTruthy();
    expect(dialog.textContent).toContain('data.timeoutMs → 10000');
    expect(screen.getByText('Node "disconnected-note" is deleted, with its edges')).toBeTruthy();
    // The raw JSON is still there, folded.
    expect(screen.getByText('Raw proposal (JSON)')).toBeTruthy();
  });

  it('approves with the feedback typed, and rejects without feedback when none was typed', () => {
    const onResume = jest.fn();
    const { unmount } = render(<AIInterruptModal interrupt={batch} threadId="ai_t" onResume={onResume} />);
    fireEvent.change(screen.getByLabelText(/Feedback/), { target: { value: '  keep the timeout at 8s next time ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));
    expect(onResume).toHaveBeenLastCalledWith('ai_t', true, 'keep the timeout at 8s next time');
    unmount();

    render(<AIInterruptModal interrupt={batch} threadId="ai_t" onResume={onResume} />);
    fireEvent.click(screen.getByRole('button', { name: 'Reject' }));
    expect(onResume).toHaveBeenLastCalledWith('ai_t', false, undefined);
  });

  it('shows a choice question with its options as buttons; a click answers with that option; declining sends approved false', () => {
    const question: QuestionInterrupt = {
      kind: 'question',
      toolCallId: 'q1',
      questionKind: 'choice',
      question: 'On which sheet should the log node go?',
      options: ['main', 'data-processing'],
    };
    const onResume = jest.fn();
    render(<AIInterruptModal interrupt={question} threadId="ai_q" onResume={onResume} />);
    expect(screen.getByText('On which sheet should the log node go?')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'data-processing' }));
    expect(onResume).toHaveBeenLastCalledWith('ai_q', true, undefined, 'data-processing');
    fireEvent.click(screen.getByRole('button', { name: 'Decline to answer' }));
    expect(onResume).toHaveBeenLastCalledWith('ai_q', false);
  });

  it('answers a confirm question with Yes (approved) or No', () => {
    const question: QuestionInterrupt = {
      kind: 'question',
      toolCallId: 'q2',
      questionKind: 'confirm',
      question: 'Delete the stale note?',
    };
    const onResume = jest.fn();
    render(<AIInterruptModal interrupt={question} threadId="ai_q" onResume={onResume} />);
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Yes' }));
    expect(onResume).toHaveBeenLastCalledWith('ai_q', true);
    fireEvent.click(screen.getByRole('button', { name: 'No' }));
    expect(onResume).toHaveBeenLastCalledWith('ai_q', false);
  });

  it('closes on Escape without deciding', () => {
    const onResume = jest.fn();
    const onDismiss = jest.fn();
    render(<AIInterruptModal interrupt={batch} threadId="ai_t" onResume={onResume} onDismiss={onDismiss} />);
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    expect(onDismiss).toHaveBeenCalledTimes(1);
    expect(onResume).not.toHaveBeenCalled();
  });
});
