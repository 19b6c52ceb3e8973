/**
 * @jest-environment jsdom
 * @jest-environment-options {"customExportConditions": ["node", "node-addons"]}
 */
// Node export conditions: the test's Socket.IO server needs the real `ws` (its browser stub cannot listen);
// the client then talks over Node's transports. The browser build runs in the Chromium end-to-end tests.
import { configure, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { Profiler, useEffect } from 'react';
import { SocketTestServer } from '../../test/socket-test.server';
import type { UsageReport } from '../protocol';
import { AIChatPanel } from './ai-chat-panel';
import { useAIChat, type UseAIChatOptions, type UseAIChatReturn } from './use-ai-chat';

// Answers come over a real connection, not from act(): wait for what they render, long enough for a loaded machine.
configure({ asyncUtilTimeout: 10_000 });
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;

const usage: UsageReport = {
  promptTokens: 900,
  completionTokens: 40,
  cachedTokens: 600,
  totalTokens: 940,
  costUsd: 0.0012,
  llmCalls: 1,
};

/** The hook in a panel, as an application would wire it; `onChat` exposes the hook's state to the test. */
function ChatHarness(props: UseAIChatOptions & { onChat?: (chat: UseAIChatReturn) => void }) {
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
      onRetry={chat.retry}
      sendWhileTyping={chat.canSendWhileTyping}
    />
  );
}

describe(useAIChat.name, () => {
  let server: SocketTestServer;
  beforeEach(async () => {
    server = await SocketTestServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  async function connectedHarness(props: Partial<Parameters<typeof ChatHarness>[0]> = {}) {
    const view = render(<ChatHarness graphKey="nba-workflow" serverUrl={server.url} autoConnect {...props} />);
    await screen.findByText('Connected');
    return view;
  }

  function send(text: string) {
    fireEvent.change(screen.getByLabelText('Message'), { target: { value: text } });
    fireEvent.keyDown(screen.getByLabelText('Message'), { key: 'Enter' });
  }

  it('throttles rendering: 400 ai:token in 100 bursts render the panel once per ~32 ms window, not once per burst, and the text shown is exactly the stream', async () => {
    const fragments = Array.from({ length: 400 }, (_, index) => `t${index} `);
    server.on('ai:chat', (socket, { _id }) => {
      socket.emit('ai:thread', { _id, threadId: 'ai_t' });
      // Spread over several macrotasks, as a real stream arrives: without the throttle each would re-render.
      let next = 0;
      const timer = setInterval(() => {
        for (const token of fragments.slice(next, next + 4)) socket.emit('ai:token', { _id, token });
        next += 4;
        if (next >= fragments.length) {
          clearInterval(timer);
          socket.emit('ai:complete', { _id, threadId: 'ai_t', fullText: fragments.join(''), usage });
        }
      }, 1);
    });
    let commits = 0;
    render(
      <Profiler id="chat" onRender={() => commits++}>
        <ChatHarness graphKey="nba-workflow" serverUrl={server.url} autoConnect />
      </Profiler>,
    );
    await screen.findByText('Connected');
    const before = commits;
    const started = Date.now();
    send('Stream a lot');
    await screen.findByText(/940 tokens/);
    const elapsed = Date.now() - started;

    expect(
      screen.getByText(
        (_, element) =>
          element?.className === 'gai-message__text' && element.textContent === fragments.join('').trimEnd() + ' ',
      ),
    ).toBeTruthy();
    // 400 tokens arrive in 100 bursts over 100+ ms: unthrottled, about one render per burst (~100); throttled, one per
    // 32 ms window, plus the renders of sending, ai:thread, connection and ai:complete.
    expect(commits - before).toBeLessThanOrEqual(Math.ceil(elapsed / 32) + 6);
  });

  it('sends while an answer streams with a multitaskStrategy: the message carries it, and a rolled-back turn leaves the conversation', async () => {
    let story: number | undefined;
    server.on('ai:chat', (socket, { _id, message, multitaskStrategy }) => {
      if (message === 'Hi') {
        socket.emit('ai:thread', { _id, threadId: 'ai_t' });
        socket.emit('ai:token', { _id, token: 'Hello.' });
        socket.emit('ai:complete', { _id, threadId: 'ai_t', fullText: 'Hello.', usage });
      } else if (message === 'Tell me a story') {
        story = _id;
        socket.emit('ai:thread', { _id, threadId: 'ai_t' });
        socket.emit('ai:token', { _id, token: 'Once upon a time' });
      } else if (multitaskStrategy === 'rollback') {
        const stopped = { _id: story!, threadId: 'ai_t', fullText: 'Once upon a time', usage };
        socket.emit('ai:complete', { ...stopped, aborted: true, rolledBack: true });
        socket.emit('ai:queued', { _id, threadId: 'ai_t' });
        socket.emit('ai:thread', { _id, threadId: 'ai_t' });
        socket.emit('ai:token', { _id, token: 'Hi again!' });
        socket.emit('ai:complete', { _id, threadId: 'ai_t', fullText: 'Hi again!', usage });
      }
    });
    let chat: UseAIChatReturn | undefined;
    await connectedHarness({ multitaskStrategy: 'rollback', onChat: (value) => (chat = value) });
    expect(chat!.canSendWhileTyping).toBe(false);
    send('Hi');
    await screen.findByText('Hello.');
    send('Tell me a story');
    await screen.findByText('Once upon a time');
    expect(chat!.isTyping).toBe(true);
    expect(chat!.canSendWhileTyping).toBe(true);

    send('Never mind');
    await screen.findByText('Hi again!');
    expect(server.messages('ai:chat')[2]).toMatchObject({ message: 'Never mind', multitaskStrategy: 'rollback' });
    expect(screen.queryByText('Tell me a story')).toBeNull();
    expect(screen.queryByText('Once upon a time')).toBeNull();
    expect(screen.getByText('Hello.')).toBeTruthy();
    await waitFor(() => expect(chat!.isTyping).toBe(false));
  });

  it('streams an answer with its tool badge and usage, and keeps the thread for the next message', async () => {
    server.on('ai:chat', (socket, { _id, threadId }) => {
      socket.emit('ai:thread', { _id, threadId: threadId ?? 'ai_new' });
      socket.emit('ai:tool_start', { _id, toolCallId: 'c1', toolName: 'read_node_detail' });
      socket.emit('ai:tool_result', { _id, toolCallId: 'c1', result: '{"_key":"fetch-api"}' });
      socket.emit('ai:token', { _id, token: 'It calls the NBA API.' });
      socket.emit('ai:complete', { _id, threadId: threadId ?? 'ai_new', fullText: 'It calls the NBA API.', usage });
    });
    let chat: UseAIChatReturn | undefined;
    await connectedHarness({ onChat: (value) => (chat = value) });
    send('What does fetch-api do?');
    await screen.findByText('It calls the NBA API.');
    expect(screen.getByText('read_node_detail')).toBeTruthy();
    expect(screen.getByText('940 tokens (900 in, 40 out, 600 cached) · $0.0012 · 1 call')).toBeTruthy();
    expect(chat!.threadId).toBe('ai_new');

    send('And root?');
    await waitFor(() => expect(server.messages('ai:chat')).toHaveLength(2));
    expect(server.messages('ai:chat')[1]).toMatchObject({
      graphKey: 'nba-workflow',
      message: 'And root?',
      threadId: 'ai_new',
    });
  });

  it('sends a message with blocks as segments and shows them as chips in the sent message', async () => {
    server.on('ai:chat', (socket, { _id }) => {
      socket.emit('ai:thread', { _id, threadId: 'ai_b' });
      socket.emit('ai:complete', { _id, threadId: 'ai_b', fullText: 'Read.', usage });
    });
    await connectedHarness();
    send('Why does @fetch-api fail? /use filter');
    await waitFor(() => expect(server.messages('ai:chat')).toHaveLength(1));
    const sent = server.messages('ai:chat')[0];
    expect(sent.message).toBeUndefined();
    expect(sent.segments).toEqual([
      { type: 'text', text: 'Why does ' },
      { type: 'block', block: 'pointer', config: { nodeKeys: ['fetch-api'] }, preview: 'fetch-api' },
      { type: 'text', text: ' fail? ' },
      { type: 'block', block: 'use', config: { nodeType: 'filter' }, preview: 'filter' },
    ]);
    const bubble = (await screen.findByText('pointer · fetch-api')).closest('.gai-message--user');
    expect(bubble?.textContent).toBe('Why does pointer · fetch-api fail? use · filter');
  });

  it('shows Retry on a retryable error, and Retry sends the same message again in the same thread, in the same bubble', async () => {
    let calls = 0;
    server.on('ai:chat', (socket, { _id, threadId }) => {
      calls += 1;
      socket.emit('ai:thread', { _id, threadId: threadId ?? 'ai_r' });
      if (calls === 1) {
        socket.emit('ai:error', {
          _id,
          error: 'The AI provider is temporarily unavailable.',
          code: 'server_error',
          retryable: true,
        });
        return;
      }
      socket.emit('ai:token', { _id, token: 'Recovered answer' });
      socket.emit('ai:complete', { _id, threadId: threadId ?? 'ai_r', fullText: 'Recovered answer', usage });
    });
    await connectedHarness();
    send('Summarize the graph');
    const retry = await screen.findByRole('button', { name: /Retry/ });
    expect(screen.getByRole('alert').textContent).toContain('temporarily unavailable');

    fireEvent.click(retry);
    await screen.findByText('Recovered answer');
    expect(server.messages('ai:chat')[1]).toMatchObject({ message: 'Summarize the graph', threadId: 'ai_r' });
    expect(screen.getAllByText('Summarize the graph')).toHaveLength(1);
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByRole('button', { name: /Retry/ })).toBeNull();
  });

  it('shows no Retry for an error that a retry cannot fix', async () => {
    server.on('ai:chat', (socket, { _id }) => {
      socket.emit('ai:error', { _id, error: 'You may not do that.', code: 'forbidden', retryable: false });
    });
    await connectedHarness();
    send('Delete everything');
    await screen.findByText('You may not do that.');
    expect(screen.queryByRole('button', { name: /Retry/ })).toBeNull();
  });

  it('hands each ai:event and ai:apply to onEvent and onApply, and still shows the event in the chat', async () => {
    const created = {
      _key: 'log-errors',
      graphKey: 'nba-workflow',
      type: 'log-node',
      sheet: '0',
      posX: 820,
      posY: 300,
    };
    const executed = {
      type: 'ACTIONS_EXECUTED' as const,
      summary: 'Sent to the editor to apply: 1 node',
      results: [{ ok: true, label: 'create_node log-errors' }],
    };
    server.on('ai:chat', (socket, { _id }) => {
      socket.emit('ai:thread', { _id, threadId: 'ai_a' });
      socket.emit('ai:tool_start', { _id, toolCallId: 'call_auto', toolName: 'propose_create_node' });
      socket.emit('ai:apply', {
        _id,
        threadId: 'ai_a',
        toolCallId: 'call_auto',
        operationId: 'ai_a:call_auto',
        proposedAction: {
          type: 'create_node',
          payload: { nodeKey: 'log-errors', typeKey: 'log-node', sheet: '0', posX: 820, posY: 300 },
          reason: 'Log the fetch errors',
        },
        preview: {
          instructions: [],
          nodesToCreate: [created],
          edgesToCreate: [],
          nodeKeysToDelete: [],
          edgeKeysToDelete: [],
          sheetId: '0',
        },
      });
      socket.emit('ai:tool_result', {
        _id,
        toolCallId: 'call_auto',
        result: '{"status":"applied","appliedBy":"client"}',
      });
      socket.emit('ai:event', { _id, threadId: 'ai_a', event: executed });
      socket.emit('ai:complete', { _id, threadId: 'ai_a', fullText: 'Sent.', usage });
    });
    const onEvent = jest.fn();
    const onApply = jest.fn();
    await connectedHarness({ onEvent, onApply });
    send('Log the errors');
    await screen.findByText('Sent.');
    expect(onApply).toHaveBeenCalledTimes(1);
    expect(onApply.mock.calls[0][0]).toMatchObject({ threadId: 'ai_a', toolCallId: 'call_auto' });
    expect(onApply.mock.calls[0][0].preview.nodesToCreate).toEqual([created]);
    expect(onEvent.mock.calls).toEqual([[executed]]);
    expect(screen.getByText('Sent to the editor to apply: 1 node')).toBeTruthy();
  });

  it('opens the modal on a proposal, and Approve resumes the thread with the decision and the feedback', async () => {
    server.on('ai:chat', (socket, { _id }) => {
      socket.emit('ai:thread', { _id, threadId: 'ai_h' });
      socket.emit('ai:complete', {
        _id,
        threadId: 'ai_h',
        fullText: 'I propose a log node.',
        usage,
        interrupt: {
          kind: 'approval',
          toolCallId: 'call_create',
          proposedAction: {
            type: 'create_node',
            payload: { nodeKey: 'log-errors', typeKey: 'log-node', sheet: '0', posX: 820, posY: 300 },
            reason: 'Log the fetch errors',
          },
          preview: {
            basis: { graphRevision: '1', nodes: { 'log-errors': null }, edges: {} },
            instructions: [],
            nodesToCreate: [
              { _key: 'log-errors', graphKey: 'nba-workflow', type: 'log-node', sheet: '0', posX: 820, posY: 300 },
            ],
            edgesToCreate: [],
            nodeKeysToDelete: [],
            edgeKeysToDelete: [],
            sheetId: '0',
          },
        },
      });
    });
    server.on('ai:resume', (socket, { _id, threadId }) => {
      socket.emit('ai:thread', { _id, threadId });
      socket.emit('ai:tool_start', { _id, toolCallId: 'call_create', toolName: 'propose_create_node' });
      socket.emit('ai:tool_result', {
        _id,
        toolCallId: 'call_create',
        result: '{"status":"approved","message":"Applied"}',
      });
      socket.emit('ai:token', { _id, token: 'Done.' });
      socket.emit('ai:complete', { _id, threadId, fullText: 'Done.', usage });
    });
    await connectedHarness();
    send('Add error logging');
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Creates 1 node on sheet 0');
    fireEvent.change(screen.getByLabelText(/Feedback/), { target: { value: 'fine by me' } });
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }));

    await screen.findByText('Done.');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(server.messages('ai:resume')[0]).toMatchObject({ threadId: 'ai_h', approved: true, feedback: 'fine by me' });
    expect(screen.getByText(/propose_create_node · approved/)).toBeTruthy();
  });
});
