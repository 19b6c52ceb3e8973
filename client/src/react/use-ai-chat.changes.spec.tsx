/**
 * @jest-environment ./client/test/jsdom-with-fetch.environment.js
 * @jest-environment-options {"customExportConditions": ["node", "node-addons"]}
 */
// Node export conditions, as in use-ai-chat.spec.tsx; fetch added to jsdom, for the change log's REST route.
import { configure, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { useEffect } from 'react';
import { SocketTestServer } from '../../test/socket-test.server';
import type { ActionConversionResult, ThreadChangeView, UsageReport } from '../protocol';
import { AIChatPanel } from './ai-chat-panel';
import { useAIChat, type UseAIChatOptions, type UseAIChatReturn } from './use-ai-chat';

configure({ asyncUtilTimeout: 10_000 });

const usage: UsageReport = {
  promptTokens: 900,
  completionTokens: 40,
  cachedTokens: 0,
  totalTokens: 940,
  costUsd: 0.0012,
  llmCalls: 1,
};
const created: ActionConversionResult = {
  instructions: [],
  nodesToCreate: [{ _key: 'log-errors', graphKey: 'nba-workflow', type: 'log-node', sheet: '0', posX: 1, posY: 2 }],
  edgesToCreate: [],
  nodeKeysToDelete: [],
  edgeKeysToDelete: [],
  sheetId: '0',
};
const deleted: ActionConversionResult = { ...created, nodesToCreate: [], nodeKeysToDelete: ['log-errors'] };
const applied: ThreadChangeView = {
  operationId: 'ai_u:c1',
  messageId: 'msg_1',
  toolCallId: 'c1',
  appliedTime: 1,
  actor: { userId: 'eddie', role: 'editor', via: 'approval' },
  appliedBy: 'server',
  changes: created,
  inverse: deleted,
};
const revertedEvent = {
  type: 'ACTIONS_REVERTED' as const,
  summary: 'Reverted 1 operation: 1 change',
  results: [{ ok: true, label: 'delete_node log-errors' }],
  operationIds: ['ai_u:undo:r1', 'ai_u:c1'],
};
const undoOperation: ThreadChangeView = {
  ...applied,
  operationId: 'ai_u:undo:r1',
  messageId: 'msg_2',
  toolCallId: undefined,
  appliedTime: 2,
  actor: { userId: 'eddie', role: 'editor', via: 'undo' },
  changes: deleted,
  inverse: created,
  reverts: ['ai_u:c1'],
};

function Harness(props: UseAIChatOptions & { onChat?: (chat: UseAIChatReturn) => void }) {
  const chat = useAIChat(props);
  useEffect(() => {
    props.onChat?.(chat);
  });
  return (
    <AIChatPanel
      messages={chat.messages}
      isTyping={chat.isTyping}
      isConnected={chat.isConnected}
      threadId={chat.threadId}
      onSend={chat.sendMessage}
      onStop={chat.stopGeneration}
      onResume={chat.resume}
      changes={chat.changes}
      onUndo={(messageId) => void chat.undo(messageId)}
      onRestore={(messageId) => void chat.restore(messageId)}
      revert={chat.revert}
    />
  );
}

describe(`${useAIChat.name}: undo and the change log`, () => {
  let server: SocketTestServer;
  beforeEach(async () => {
    // Answers come over a real connection, not from act(); Testing Library turns act's checks on in its beforeAll.
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;
    server = await SocketTestServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  function send(text: string) {
    fireEvent.change(screen.getByLabelText('Message'), { target: { value: text } });
    fireEvent.keyDown(screen.getByLabelText('Message'), { key: 'Enter' });
  }

  it("loads the thread's change log after an answer, offers Undo on the answer that applied something, and undoes it", async () => {
    let log: ThreadChangeView[] = [applied];
    server.route('GET', '/api/ai/thread/ai_u/changes', () => ({ status: 200, body: log }));
    server.on('ai:chat', (socket, { _id }) => {
      socket.emit('ai:thread', { _id, threadId: 'ai_u' });
      socket.emit('ai:tool_start', { _id, toolCallId: 'c1', toolName: 'propose_create_node' });
      socket.emit('ai:tool_result', { _id, toolCallId: 'c1', result: '{"status":"applied","message":"Applied"}' });
      socket.emit('ai:token', { _id, token: 'Added it.' });
      socket.emit('ai:complete', { _id, threadId: 'ai_u', fullText: 'Added it.', usage });
    });
    server.on('ai:undo', (socket, { _id, threadId }) => {
      log = [{ ...applied, revertedBy: undoOperation.operationId }, undoOperation];
      socket.emit('ai:thread', { _id, threadId });
      socket.emit('ai:event', { _id, threadId, event: revertedEvent });
      socket.emit('ai:reverted', {
        _id,
        threadId,
        operationId: undoOperation.operationId,
        reverted: ['ai_u:c1'],
        refused: [],
        event: revertedEvent,
      });
    });
    const onEvent = jest.fn();
    let chat: UseAIChatReturn | undefined;
    render(
      <Harness
        graphKey="nba-workflow"
        serverUrl={server.url}
        token="jwt-u"
        autoConnect
        onEvent={onEvent}
        onChat={(value) => (chat = value)}
      />,
    );
    await screen.findByText('Connected');
    send('Add a log node');
    await screen.findByText('Applied: 1 change');
    expect(chat!.changes).toEqual([applied]);
    expect(server.restRequests[0]).toMatchObject({
      method: 'GET',
      path: '/api/ai/thread/ai_u/changes',
      authorization: 'Bearer jwt-u',
    });

    fireEvent.click(screen.getByRole('button', { name: 'Undo the changes of this answer' }));
    await screen.findByText('Its changes were undone');
    expect(server.messages('ai:undo')).toEqual([
      { _id: expect.any(Number), threadId: 'ai_u', messageId: 'msg_1', token: 'jwt-u' },
    ]);
    expect(onEvent).toHaveBeenCalledWith(revertedEvent);
    expect(chat!.revert).toMatchObject({ kind: 'undo', status: 'done', result: { reverted: ['ai_u:c1'] } });
    expect(screen.getAllByText('Reverted 1 operation: 1 change').length).toBeGreaterThanOrEqual(2);
    // The revert's event offers to put the change back: an undo of the revert's own message.
    fireEvent.click(screen.getByRole('button', { name: 'Put back what this undo reverted' }));
    await waitFor(() => expect(server.messages('ai:undo')).toHaveLength(2));
    expect(server.messages('ai:undo')[1]).toMatchObject({ threadId: 'ai_u', messageId: 'msg_2' });
  });

  it('refuses to undo without a thread, and reports an undo the service refused', async () => {
    server.route('GET', '/api/ai/thread/ai_x/changes', () => ({ status: 200, body: [applied] }));
    server.on('ai:chat', (socket, { _id }) => {
      socket.emit('ai:thread', { _id, threadId: 'ai_x' });
      socket.emit('ai:complete', { _id, threadId: 'ai_x', fullText: 'Hello.', usage });
    });
    server.on('ai:undo', (socket, { _id }) =>
      socket.emit('ai:error', { _id, error: 'Nothing to revert', code: 'bad_request', retryable: false }),
    );
    let chat: UseAIChatReturn | undefined;
    render(<Harness graphKey="nba-workflow" serverUrl={server.url} autoConnect onChat={(value) => (chat = value)} />);
    await screen.findByText('Connected');
    await expect(chat!.undo()).resolves.toMatchObject({
      type: 'error',
      error: { code: 'thread_busy', fromServer: false },
    });
    expect(server.messages('ai:undo')).toEqual([]);

    send('Hi');
    await screen.findByText('Hello.');
    await expect(chat!.undo()).resolves.toMatchObject({ type: 'error', error: { code: 'bad_request' } });
    expect(server.messages('ai:undo')[0]).toEqual({ _id: expect.any(Number), threadId: 'ai_x' });
    await screen.findByText('Could not undo: Nothing to revert');
  });
});
