/** @jest-environment jsdom */
import { fireEvent, render, screen } from '@testing-library/react';
import { batchInterrupt } from '../../test/graph-view.fixtures';
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

  it('reviews a batch item by item: the checked items go in approvedItems, and a subset the service would refuse cannot be sent', () => {
    const onResume = jest.fn();
    const onItemsChange = jest.fn();
    render(
      <AIInterruptModal
        interrupt={batchInterrupt()}
        threadId="ai_b"
        onResume={onResume}
        onItemsChange={onItemsChange}
      />,
    );
    const checkbox = (description: string) => screen.getByRole('checkbox', { name: new RegExp(description) });
    expect(screen.getAllByRole('checkbox').map((box) => (box as HTMLInputElement).checked)).toEqual(
      Array(6).fill(true),
    );
    expect(onItemsChange).toHaveBeenLastCalledWith(['i1', 'i2', 'i3', 'i4', 'i5', 'i6']);
    // Everything checked: a plain approval.
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));
    expect(onResume).toHaveBeenLastCalledWith('ai_b', true, undefined);

    // The new node left out, its edge kept: the edge needs it.
    fireEvent.click(checkbox('New log-node node "log-errors"'));
    expect(
      screen.getByText(/i2 \(New edge fetch-api:R-1 → log-errors:L-0\) needs node "log-errors", which i1 creates/),
    ).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Approve 5 of 6' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(checkbox('New edge fetch-api:R-1 → log-errors:L-0'));
    fireEvent.click(checkbox('Node "root" moves'));
    expect(onItemsChange).toHaveBeenLastCalledWith(['i3', 'i5', 'i6']);
    fireEvent.change(screen.getByLabelText(/Feedback/), { target: { value: 'not the log node' } });
    fireEvent.click(screen.getByRole('button', { name: 'Approve 3 of 6' }));
    expect(onResume).toHaveBeenLastCalledWith('ai_b', true, 'not the log node', undefined, ['i3', 'i5', 'i6']);

    // Nothing checked: only Reject is left.
    for (const description of ['data.minGames', 'error-handler', 'team-averages'])
      fireEvent.click(checkbox(description));
    expect(screen.getByText(/No change is checked/)).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Approve 0 of 6' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows a stale proposal as stale with what changed: no Approve, only Reject or ask for a new proposal', () => {
    const onResume = jest.fn();
    const staleness = {
      changed: [{ kind: 'node' as const, key: 'fetch-api', change: 'modified' as const }],
      staleItems: new Set<string>(),
      stale: true,
    };
    render(<AIInterruptModal interrupt={batch} threadId="ai_s" onResume={onResume} staleness={staleness} />);
    expect(screen.getByRole('alert').textContent).toContain(
      'Stale: the graph changed since this proposal was made. Approving it would apply nothing.',
    );
    expect(screen.getByRole('alert').textContent).toContain('Node "fetch-api" was changed');
    expect(screen.queryByRole('button', { name: /^Approve/ })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Ask for a new proposal' }));
    expect(onResume).toHaveBeenLastCalledWith(
      'ai_s',
      false,
      'The graph changed since this proposal was made (Node "fetch-api" was changed): propose again from the graph as it is now.',
    );
  });

  it("leaves a batch's stale items out (unchecked, locked) and lets the reviewer approve the others", () => {
    const onResume = jest.fn();
    const staleness = {
      changed: [{ kind: 'node' as const, key: 'filter-active', change: 'modified' as const }],
      staleItems: new Set(['i3']),
      stale: false,
    };
    render(<AIInterruptModal interrupt={batchInterrupt()} threadId="ai_p" onResume={onResume} staleness={staleness} />);
    expect(screen.getByRole('alert').textContent).toContain('1 of its 6 changes concern what changed');
    const stale = screen.getByRole('checkbox', { name: /data\.minGames changed/ }) as HTMLInputElement;
    expect([stale.checked, stale.disabled]).toEqual([false, true]);
    expect(screen.getByText(/changed since: cannot be applied/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Approve 5 of 6' }));
    expect(onResume).toHaveBeenLastCalledWith('ai_p', true, undefined, undefined, ['i1', 'i2', 'i4', 'i5', 'i6']);
  });
});
