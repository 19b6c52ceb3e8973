import { AiChatClient } from './ai-chat.client';
import type { AiRequestHandlers } from './ai-request';
import type { UsageReport } from './protocol';
import { SocketTestServer, type TestServerSocket } from '../test/socket-test.server';

const usage: UsageReport = {
  promptTokens: 120,
  completionTokens: 8,
  cachedTokens: 0,
  totalTokens: 128,
  costUsd: 0.0002,
  llmCalls: 1,
};

/** Every callback of a request, recorded in order as [name, argument]. */
function recorder(): { calls: Array<[string, unknown]>; handlers: Required<AiRequestHandlers> } {
  const calls: Array<[string, unknown]> = [];
  const record = (name: string) => (value: unknown) => calls.push([name, value]);
  return {
    calls,
    handlers: {
      onThread: record('thread'),
      onToken: record('token'),
      onText: (delta) => calls.push(['text', delta]),
      onToolStart: record('tool_start'),
      onToolResult: record('tool_result'),
      onEvent: record('event'),
      onApply: record('apply'),
      onComplete: record('complete'),
      onReverted: record('reverted'),
      onError: record('error'),
    },
  };
}

function connected(client: AiChatClient): Promise<void> {
  return new Promise((resolve, reject) => {
    if (client.connected) return resolve();
    const off = client.on('connect', () => {
      off();
      resolve();
    });
    client.on('connect_error', reject);
  });
}

describe(AiChatClient.name, () => {
  let server: SocketTestServer;
  const clients: AiChatClient[] = [];
  const open = (options: Partial<ConstructorParameters<typeof AiChatClient>[0]> = {}) => {
    const client = new AiChatClient({ url: server.url, transports: ['websocket'], ...options });
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    server = await SocketTestServer.start({ refuse: (token) => token === 'bad-token' });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await server.close();
  });

  it('sends ai:chat with its own _id and the token (handshake and message), and routes every event type to its typed callback in order', async () => {
    server.on('ai:chat', (socket, message) => {
      const _id = message._id;
      socket.emit('ai:thread', { _id, threadId: 'ai_t1' });
      socket.emit('ai:event', {
        _id,
        threadId: 'ai_t1',
        event: { type: 'DATA_ADDED', summary: 'Loaded 3 nodes', results: [] },
      });
      socket.emit('ai:token', { _id, token: 'Reading ' });
      socket.emit('ai:tool_start', { _id, toolCallId: 'c1', toolName: 'read_node_detail' });
      socket.emit('ai:tool_result', { _id, toolCallId: 'c1', result: '{"_key":"root"}' });
      socket.emit('ai:apply', {
        _id,
        threadId: 'ai_t1',
        operationId: 'ai_t1:c2',
        toolCallId: 'c2',
        proposedAction: { type: 'delete_edge', payload: { edgeKey: 'e1' }, reason: 'unused' },
        preview: {
          instructions: [],
          nodesToCreate: [],
          edgesToCreate: [],
          nodeKeysToDelete: [],
          edgeKeysToDelete: ['e1'],
          sheetId: '0',
        },
      });
      socket.emit('ai:token', { _id, token: 'done.' });
      socket.emit('ai:complete', { _id, threadId: 'ai_t1', fullText: 'Reading done.', usage });
    });
    const client = open({ token: 'jwt-1' });
    const { calls, handlers } = recorder();
    const request = client.chat({ graphKey: 'nba-workflow', message: 'What does root do?' }, handlers);
    const outcome = await request.done;

    expect(outcome).toEqual({
      type: 'complete',
      event: { _id: request.id, threadId: 'ai_t1', fullText: 'Reading done.', usage },
    });
    expect(server.received[0]).toEqual({
      event: 'ai:chat',
      message: { _id: request.id, graphKey: 'nba-workflow', message: 'What does root do?', token: 'jwt-1' },
      handshakeToken: 'jwt-1',
    });
    // Text is flushed before each tool and terminal event, so the order of text and tools is kept.
    expect(calls.map(([name]) => name)).toEqual([
      'thread',
      'event',
      'token',
      'text',
      'tool_start',
      'tool_result',
      'apply',
      'token',
      'text',
      'complete',
    ]);
    expect(calls.filter(([name]) => name === 'text').map(([, delta]) => delta)).toEqual(['Reading ', 'done.']);
    expect(request.threadId).toBe('ai_t1');
    expect(request.status).toBe('completed');
  });

  it('coalesces a burst of ai:token into a few onText calls (~32 ms window) whose concatenation is exactly the text', async () => {
    const fragments = Array.from({ length: 300 }, (_, index) => `w${index} `);
    server.on('ai:chat', (socket, { _id }) => {
      for (const token of fragments) socket.emit('ai:token', { _id, token });
      setTimeout(() => socket.emit('ai:complete', { _id, threadId: 'ai_t', fullText: fragments.join(''), usage }), 100);
    });
    const client = open();
    const deltas: string[] = [];
    let tokens = 0;
    await client.chat(
      { graphKey: 'g', message: 'go' },
      { onToken: () => tokens++, onText: (delta) => deltas.push(delta) },
    ).done;

    expect(tokens).toBe(300);
    expect(deltas.join('')).toBe(fragments.join(''));
    expect(deltas.length).toBeLessThanOrEqual(10);
  });

  it('hands every ai:token on at once with coalesceMs 0', async () => {
    server.on('ai:chat', (socket, { _id }) => {
      for (const token of ['a', 'b', 'c']) socket.emit('ai:token', { _id, token });
      socket.emit('ai:complete', { _id, threadId: 'ai_t', fullText: 'abc', usage });
    });
    const deltas: string[] = [];
    await open({ coalesceMs: 0 }).chat({ graphKey: 'g', message: 'go' }, { onText: (delta) => deltas.push(delta) })
      .done;
    expect(deltas).toEqual(['a', 'b', 'c']);
  });

  it('keeps two concurrent requests apart by _id', async () => {
    server.on('ai:chat', (socket, { _id, message = '' }) => {
      setTimeout(
        () => {
          socket.emit('ai:token', { _id, token: message.toUpperCase() });
          socket.emit('ai:complete', { _id, threadId: `ai_${message}`, fullText: message.toUpperCase(), usage });
        },
        message === 'first' ? 30 : 5,
      );
    });
    const client = open({ coalesceMs: 0 });
    const first = client.chat({ graphKey: 'g', message: 'first' });
    const second = client.chat({ graphKey: 'g', message: 'second' });
    expect(first.id).not.toBe(second.id);
    const [a, b] = await Promise.all([first.done, second.done]);
    expect(a).toMatchObject({ type: 'complete', event: { threadId: 'ai_first', fullText: 'FIRST' } });
    expect(b).toMatchObject({ type: 'complete', event: { threadId: 'ai_second', fullText: 'SECOND' } });
    expect(first.text).toBe('FIRST');
  });

  it('resumes with a decision or a question answer, and stop() sends ai:interrupt for that request, which ends aborted with its text', async () => {
    server.on('ai:resume', (socket, { _id, threadId }) => {
      socket.emit('ai:thread', { _id, threadId });
      socket.emit('ai:token', { _id, token: 'Applying' });
    });
    server.on('ai:interrupt', (socket, { _id }) =>
      socket.emit('ai:complete', { _id, threadId: 'ai_t', fullText: 'Applying', usage, aborted: true }),
    );
    const client = open({ token: () => 'fresh' });
    const request = client.resume({ threadId: 'ai_t', approved: true, answer: 'main' });
    await server.waitFor('ai:resume');
    request.stop();
    const outcome = await request.done;

    expect(server.messages('ai:resume')[0]).toEqual({
      _id: request.id,
      threadId: 'ai_t',
      approved: true,
      answer: 'main',
      token: 'fresh',
    });
    expect(server.messages('ai:interrupt')).toEqual([{ _id: request.id, token: 'fresh' }]);
    expect(outcome).toMatchObject({ type: 'complete', event: { aborted: true, fullText: 'Applying' } });
  });

  it('sends approvedItems with an approval, to apply only those items of a batch', async () => {
    server.on('ai:resume', (socket, { _id, threadId }) =>
      socket.emit('ai:complete', { _id, threadId, fullText: 'Applied 2 of 3.', usage }),
    );
    const outcome = await open({ token: 'jwt-p' }).resume({
      threadId: 'ai_t',
      approved: true,
      approvedItems: ['i1', 'i3'],
    }).done;
    expect(server.messages('ai:resume')[0]).toEqual({
      _id: expect.any(Number),
      threadId: 'ai_t',
      approved: true,
      approvedItems: ['i1', 'i3'],
      token: 'jwt-p',
    });
    expect(outcome).toMatchObject({ type: 'complete', event: { fullText: 'Applied 2 of 3.' } });
  });

  const revertedEvent = {
    type: 'ACTIONS_REVERTED' as const,
    summary: 'Reverted 1 operation: 1 change; 1 part refused (changed since)',
    results: [
      { ok: true, label: 'delete_node log-errors', detail: 'created by the assistant' },
      { ok: false, label: 'node filter-active', detail: 'changed since: kept as it is' },
    ],
    operationIds: ['ai_t:undo:rev_1', 'ai_t:call_1'],
  };

  it('undoes a message (ai:undo with its messageId) and restores to one (ai:restore): events in order, then ai:reverted ends the request', async () => {
    const answer = (socket: TestServerSocket, _id: number, threadId: string) => {
      socket.emit('ai:thread', { _id, seq: 1, threadId });
      socket.emit('ai:event', { _id, seq: 2, threadId, event: revertedEvent });
      socket.emit('ai:reverted', {
        _id,
        seq: 3,
        threadId,
        operationId: 'ai_t:undo:rev_1',
        reverted: ['ai_t:call_1'],
        refused: [{ kind: 'node', key: 'filter-active', reason: 'changed_since', operationId: 'ai_t:call_1' }],
        event: revertedEvent,
      });
    };
    server.on('ai:undo', (socket, { _id, threadId }) => answer(socket, _id, threadId));
    server.on('ai:restore', (socket, { _id, threadId }) => answer(socket, _id, threadId));
    const client = open({ token: 'jwt-u' });
    const { calls, handlers } = recorder();
    const undo = client.undo({ threadId: 'ai_t', messageId: 'msg_2' }, handlers);
    const outcome = await undo.done;

    expect(server.messages('ai:undo')).toEqual([
      { _id: undo.id, threadId: 'ai_t', messageId: 'msg_2', token: 'jwt-u' },
    ]);
    expect(calls.map(([name]) => name)).toEqual(['thread', 'event', 'reverted']);
    expect(outcome).toEqual({
      type: 'reverted',
      event: expect.objectContaining({
        operationId: 'ai_t:undo:rev_1',
        reverted: ['ai_t:call_1'],
        refused: [{ kind: 'node', key: 'filter-active', reason: 'changed_since', operationId: 'ai_t:call_1' }],
      }),
    });
    expect(undo.kind).toBe('undo');
    expect(undo.status).toBe('completed');

    const latest = client.undo({ threadId: 'ai_t' });
    await latest.done;
    expect(server.messages('ai:undo')[1]).toEqual({ _id: latest.id, threadId: 'ai_t', token: 'jwt-u' });
    const restore = client.restore({ threadId: 'ai_t', messageId: 'msg_1' });
    await expect(restore.done).resolves.toMatchObject({ type: 'reverted' });
    expect(server.messages('ai:restore')).toEqual([
      { _id: restore.id, threadId: 'ai_t', messageId: 'msg_1', token: 'jwt-u' },
    ]);
  });

  it('ends an undo refused by the service with its error (nothing to revert)', async () => {
    server.on('ai:undo', (socket, { _id }) =>
      socket.emit('ai:error', {
        _id,
        error: 'Nothing to revert: no change of the assistant is in effect there',
        code: 'bad_request',
        retryable: false,
      }),
    );
    const outcome = await open().undo({ threadId: 'ai_t' }).done;
    expect(outcome).toEqual({
      type: 'error',
      error: {
        code: 'bad_request',
        error: 'Nothing to revert: no change of the assistant is in effect there',
        retryable: false,
        fromServer: true,
      },
    });
  });

  it("never rejoins an undo caught by a dropped connection (a rejoin would replay the thread's last run): it fails, not retryable", async () => {
    server.on('ai:undo', (socket, { _id, threadId }) => {
      socket.emit('ai:thread', { _id, seq: 1, threadId });
      setTimeout(() => socket.conn.close(), 20);
    });
    const client = open();
    const outcome = await client.undo({ threadId: 'ai_t', messageId: 'msg_2' }).done;
    expect(outcome).toMatchObject({ type: 'error', error: { code: 'network', retryable: false, fromServer: false } });
    await connected(client);
    expect(server.messages('ai:rejoin')).toEqual([]);
  });

  it('ends a request with the service error (code, retryable) and reports errors of no request (_id null) on the client', async () => {
    server.on('ai:chat', (socket, { _id }) => {
      socket.emit('ai:thread', { _id, threadId: 'ai_t' });
      socket.emit('ai:error', { _id: null, error: 'Bad packet', code: 'bad_request', retryable: false });
      socket.emit('ai:error', { _id, error: 'The provider is overloaded', code: 'server_error', retryable: true });
    });
    const client = open();
    const orphans: unknown[] = [];
    client.on('orphan_error', (event) => orphans.push(event));
    const request = client.chat({ graphKey: 'g', message: 'hi' });
    const outcome = await request.done;
    expect(outcome).toEqual({
      type: 'error',
      error: { code: 'server_error', error: 'The provider is overloaded', retryable: true, fromServer: true },
    });
    expect(orphans).toEqual([{ _id: null, error: 'Bad packet', code: 'bad_request', retryable: false }]);
    expect(request.status).toBe('failed');
  });

  it('hands ai:approval_pending (no request) to its listener', async () => {
    const client = open();
    await connected(client);
    const pending = new Promise((resolve) => client.on('approval_pending', resolve));
    const interrupt = {
      kind: 'question' as const,
      toolCallId: 'q1',
      questionKind: 'confirm' as const,
      question: 'Delete it?',
    };
    server.connections[0].emit('ai:approval_pending', { threadId: 'ai_auto', automationId: 'au_1', interrupt });
    await expect(pending).resolves.toEqual({ threadId: 'ai_auto', automationId: 'au_1', interrupt });
  });

  it('drops replayed events whose seq it has already seen', async () => {
    server.on('ai:chat', (socket, { _id }) => {
      socket.emit('ai:thread', { _id, seq: 1, threadId: 'ai_t' });
      socket.emit('ai:token', { _id, seq: 2, token: 'one ' });
      socket.emit('ai:token', { _id, seq: 2, token: 'one ' });
      socket.emit('ai:token', { _id, seq: 3, token: 'two' });
      socket.emit('ai:token', { _id, seq: 1, token: 'stale' });
      socket.emit('ai:complete', { _id, seq: 4, threadId: 'ai_t', fullText: 'one two', usage });
    });
    const request = open({ coalesceMs: 0 }).chat({ graphKey: 'g', message: 'hi' });
    await request.done;
    expect(request.text).toBe('one two');
    expect(request.lastSeq).toBe(4);
  });

  it('rejoins a running request after the connection drops: ai:rejoin { _id, threadId, lastSeq } on the new connection, then the rest of the text', async () => {
    server.on('ai:chat', (socket, { _id }) => {
      socket.emit('ai:thread', { _id, seq: 1, threadId: 'ai_t' });
      socket.emit('ai:token', { _id, seq: 2, token: 'Hello ' });
      // The network drops: the server side closes the transport, the client reconnects by itself.
      setTimeout(() => socket.conn.close(), 20);
    });
    server.on('ai:rejoin', (socket, { _id, lastSeq }) => {
      // Replays after lastSeq (here one already seen, to check it is dropped), then goes on live.
      const events = [
        { seq: 2, token: 'Hello ' },
        { seq: 3, token: 'world' },
      ];
      for (const event of events) if (event.seq > lastSeq - 1) socket.emit('ai:token', { _id, ...event });
      socket.emit('ai:complete', { _id, seq: 4, threadId: 'ai_t', fullText: 'Hello world', usage });
    });
    const client = open({ coalesceMs: 0, token: 'jwt-r' });
    const texts: string[] = [];
    const request = client.chat({ graphKey: 'g', message: 'hi' }, { onText: (delta) => texts.push(delta) });
    const outcome = await request.done;

    expect(server.messages('ai:rejoin')).toEqual([{ _id: request.id, threadId: 'ai_t', lastSeq: 2, token: 'jwt-r' }]);
    expect(server.connections).toHaveLength(2);
    expect(outcome).toMatchObject({ type: 'complete', event: { fullText: 'Hello world' } });
    expect(texts.join('')).toBe('Hello world');
  });

  it('fails a running request at once with a retryable network error when the connection drops and the service does not number its events', async () => {
    server.on('ai:chat', (socket, { _id }) => {
      socket.emit('ai:thread', { _id, threadId: 'ai_t' });
      socket.emit('ai:token', { _id, token: 'Hel' });
      setTimeout(() => socket.conn.close(), 20);
    });
    const client = open({ coalesceMs: 0 });
    const request = client.chat({ graphKey: 'g', message: 'hi' });
    const outcome = await request.done;
    expect(outcome).toMatchObject({ type: 'error', error: { code: 'network', retryable: true, fromServer: false } });
    expect(request.text).toBe('Hel');
    expect(server.messages('ai:rejoin')).toEqual([]);
    // ...and it reconnects by itself for the next request.
    await connected(client);
  });

  it('gives up a rejoin the service does not answer within rejoinTimeoutMs', async () => {
    const client = open({ rejoinTimeoutMs: 100 });
    // Connected first, and the server's receipt awaited: on a loaded machine 100 ms may pass before either.
    await connected(client);
    const request = client.rejoin({ threadId: 'ai_t', lastSeq: 7 });
    const outcome = await request.done;
    await server.waitFor('ai:rejoin');
    expect(server.messages('ai:rejoin')).toEqual([{ _id: request.id, threadId: 'ai_t', lastSeq: 7 }]);
    expect(outcome).toMatchObject({ type: 'error', error: { code: 'timeout', fromServer: false } });
  });

  it('reports a refused token as connect_error "unauthorized"', async () => {
    const client = open({ token: 'bad-token' });
    const error = await new Promise<Error>((resolve) => client.on('connect_error', resolve));
    expect(error.message).toBe('unauthorized');
    expect(client.connected).toBe(false);
  });
});
