import { renderThreadEvent } from './thread-event.renderer';

describe(renderThreadEvent.name, () => {
  it('writes the summary after [SYSTEM], then one ✓ or ✗ line per result', () => {
    expect(
      renderThreadEvent({
        type: 'ACTIONS_EXECUTED',
        summary: 'Created 1 node on sheet main; 1 change failed',
        results: [
          { ok: true, label: 'create_node log-errors', detail: 'type log-node' },
          { ok: false, label: 'delete_node ghost', detail: 'Node "ghost" does not exist' },
          { ok: true, label: 'mention root' },
        ],
      }),
    ).toBe(
      '[SYSTEM] Created 1 node on sheet main; 1 change failed\n' +
        '  ✓ create_node log-errors: type log-node\n' +
        '  ✗ delete_node ghost: Node "ghost" does not exist\n' +
        '  ✓ mention root',
    );
  });
});
