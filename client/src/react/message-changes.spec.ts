import type { ActionConversionResult, ThreadChangeView } from '../protocol';
import type { AIChatMessage } from './ai-chat-message';
import { changesByMessage } from './message-changes';

const empty: ActionConversionResult = {
  instructions: [],
  nodesToCreate: [],
  edgesToCreate: [],
  nodeKeysToDelete: [],
  edgeKeysToDelete: [],
  sheetId: '0',
};

function change(operationId: string, messageId: string, extra: Partial<ThreadChangeView> = {}): ThreadChangeView {
  return {
    operationId,
    messageId,
    appliedTime: Number(operationId.replace(/\D/g, '')) || 1,
    actor: { userId: 'eddie', role: 'editor', via: 'approval' },
    appliedBy: 'server',
    changes: empty,
    inverse: empty,
    ...extra,
  };
}

const answer = (id: string, ...toolCallIds: string[]): AIChatMessage => ({
  id,
  role: 'assistant',
  content: id,
  createdTime: 1,
  toolCalls: toolCallIds.map((toolCallId) => ({ toolCallId, toolName: 'propose_create_node', status: 'done' })),
});
const reverted = (id: string, operationIds: string[]): AIChatMessage => ({
  id,
  role: 'event',
  content: 'Reverted',
  createdTime: 1,
  event: { type: 'ACTIONS_REVERTED', summary: 'Reverted', results: [], operationIds },
});

describe(changesByMessage.name, () => {
  const messages = [
    { id: 'u1', role: 'user' as const, content: 'Add a', createdTime: 1 },
    answer('a1', 'c1'),
    answer('a2', 'read', 'c2'),
    answer('a3'),
  ];

  it('finds the answer showing each change by its tool call, with what undo names and what restore would revert', () => {
    const found = changesByMessage(messages, [
      change('t:c1', 'msg_1', { toolCallId: 'c1' }),
      change('t:c2', 'msg_2', { toolCallId: 'c2' }),
    ]);
    expect([...found.keys()]).toEqual(['a1', 'a2']);
    expect(found.get('a1')).toMatchObject({ messageId: 'msg_1', laterInEffect: 1 });
    expect(found.get('a1')!.inEffect.map((item) => item.operationId)).toEqual(['t:c1']);
    expect(found.get('a2')).toMatchObject({ messageId: 'msg_2', laterInEffect: 0 });
  });

  it('leaves out what a revert undid, and offers to undo the revert from its event while it is in effect', () => {
    const changes = [
      change('t:c1', 'msg_1', { toolCallId: 'c1' }),
      change('t:c2', 'msg_2', { toolCallId: 'c2', revertedBy: 't:undo:3' }),
      change('t:undo:3', 'msg_3', { actor: { userId: 'eddie', role: 'editor', via: 'undo' }, reverts: ['t:c2'] }),
    ];
    const withEvent = [...messages, reverted('e3', ['t:undo:3', 't:c2'])];
    const found = changesByMessage(withEvent, changes);
    expect(found.get('a2')!.inEffect).toEqual([]);
    expect(found.get('a1')!.laterInEffect).toBe(0);
    expect(found.get('e3')).toMatchObject({ messageId: 'msg_3', inEffect: [{ operationId: 't:undo:3' }] });

    // The revert undone in turn (a redo): the answer's change is in effect again, carried by the redo; the first
    // revert's event has nothing left to undo, and the redo's is left to the answer's own undo.
    changes[2].revertedBy = 't:undo:4';
    changes.push(
      change('t:undo:4', 'msg_4', { actor: { userId: 'eddie', role: 'editor', via: 'undo' }, reverts: ['t:undo:3'] }),
    );
    const redone = changesByMessage([...withEvent, reverted('e4', ['t:undo:4', 't:undo:3'])], changes);
    expect(redone.get('a2')!.inEffect.map((item) => item.operationId)).toEqual(['t:undo:4']);
    expect(redone.get('e3')!.inEffect).toEqual([]);
    expect(redone.get('e4')!.inEffect).toEqual([]);
    expect(redone.get('a1')!.laterInEffect).toBe(1);
  });

  it('names the latest of several service messages an answer shows, and ignores changes no message shows', () => {
    const found = changesByMessage(
      [answer('a1', 'c1', 'c2')],
      [
        change('t:c1', 'msg_1', { toolCallId: 'c1', appliedTime: 10 }),
        change('t:c2', 'msg_2', { toolCallId: 'c2', appliedTime: 20 }),
        change('t:c9', 'msg_9', { toolCallId: 'c9' }),
      ],
    );
    expect(found.get('a1')).toMatchObject({ messageId: 'msg_2', laterInEffect: 0 });
    expect(found.get('a1')!.inEffect).toHaveLength(2);
    expect(found.size).toBe(1);
  });
});
