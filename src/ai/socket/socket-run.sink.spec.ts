import type { AgentResult, UsageReport } from '../agent/agent-result';
import type { LoggedRunEvent, RunEventWriter } from '../runs/run-event.log';
import type { AiEventTarget } from './ai-server-socket';
import { SocketRunSink } from './socket-run.sink';
import { TokenFlushScheduler } from './token-flush.scheduler';

const usage: UsageReport = {
  promptTokens: 10,
  completionTokens: 5,
  cachedTokens: 0,
  totalTokens: 15,
  costUsd: 0.001,
  llmCalls: 1,
};

function fakeSocket(): { socket: AiEventTarget; sent: Array<[string, unknown]> } {
  const sent: Array<[string, unknown]> = [];
  const socket = {
    connected: true,
    emit: (event: string, payload: unknown) => {
      sent.push([event, payload]);
      return true;
    },
  } as unknown as AiEventTarget;
  return { socket, sent };
}

const message = (text: string, extra: Partial<AgentResult> = {}): AgentResult =>
  ({ threadId: 'ai_t', type: 'message', message: text, toolCalls: [], usage, ...extra }) as AgentResult;

describe(SocketRunSink.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('coalesces fragments until the scheduler ticks, and completes with the text it sent', () => {
    const { socket, sent } = fakeSocket();
    const sink = new SocketRunSink(socket, 4, new TokenFlushScheduler(10), 1000);
    sink.thread('ai_t');
    sink.token('Hel');
    sink.token('lo');
    expect(sent).toEqual([['ai:thread', { _id: 4, seq: 1, threadId: 'ai_t' }]]);
    jest.advanceTimersByTime(10);
    sink.token(' world');
    sink.complete(message('ignored: fullText is what was streamed'));
    expect(sent.slice(1)).toEqual([
      ['ai:token', { _id: 4, seq: 2, token: 'Hello' }],
      ['ai:token', { _id: 4, seq: 3, token: ' world' }],
      ['ai:complete', { _id: 4, seq: 4, threadId: 'ai_t', fullText: 'Hello world', usage }],
    ]);
    expect(sink.tokensStreamed).toBe(3);
  });

  it('flushes at once when the buffer reaches its limit', () => {
    const { socket, sent } = fakeSocket();
    const sink = new SocketRunSink(socket, 1, new TokenFlushScheduler(10), 5);
    sink.token('abc');
    expect(sent).toHaveLength(0);
    sink.token('def');
    expect(sent).toEqual([['ai:token', { _id: 1, seq: 1, token: 'abcdef' }]]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('sends buffered text before a tool event, keeping the order', () => {
    const { socket, sent } = fakeSocket();
    const sink = new SocketRunSink(socket, 2, new TokenFlushScheduler(10), 1000);
    sink.token('Let me look.');
    sink.toolStart('call_1', 'read_node_detail');
    sink.toolResult('call_1', '{"_key":"root"}');
    expect(sent.map(([event]) => event)).toEqual(['ai:token', 'ai:tool_start', 'ai:tool_result']);
    expect(sent[1][1]).toEqual({ _id: 2, seq: 2, toolCallId: 'call_1', toolName: 'read_node_detail' });
    jest.advanceTimersByTime(20);
    expect(sent).toHaveLength(3);
  });

  it('carries the interrupt or the aborted flag of the result', () => {
    const { socket, sent } = fakeSocket();
    const interrupt = {
      kind: 'question' as const,
      toolCallId: 'c',
      questionKind: 'confirm' as const,
      question: 'Which season?',
    };
    new SocketRunSink(socket, 1, new TokenFlushScheduler(10), 100).complete({
      threadId: 'ai_t',
      type: 'interrupt',
      message: '',
      interrupt,
      toolCalls: [],
      usage,
    } as AgentResult);
    new SocketRunSink(socket, 2, new TokenFlushScheduler(10), 100).complete(
      message('part', { aborted: true } as Partial<AgentResult>),
    );
    expect(sent[0][1]).toEqual({ _id: 1, seq: 1, threadId: 'ai_t', fullText: '', usage, interrupt });
    expect(sent[1][1]).toEqual({ _id: 2, seq: 1, threadId: 'ai_t', fullText: '', usage, aborted: true });
  });

  it('sends exactly one terminal event and nothing after it', () => {
    const { socket, sent } = fakeSocket();
    const sink = new SocketRunSink(socket, 9, new TokenFlushScheduler(10), 1000);
    sink.token('partial');
    sink.fail({ error: 'The AI request timed out. Please try again.', code: 'timeout', retryable: true });
    sink.complete(message('late'));
    sink.token('late');
    sink.toolStart('c', 'search_nodes');
    sink.fail({ error: 'again', code: 'internal', retryable: false });
    jest.advanceTimersByTime(20);
    expect(sent).toEqual([
      ['ai:token', { _id: 9, seq: 1, token: 'partial' }],
      [
        'ai:error',
        { _id: 9, seq: 2, error: 'The AI request timed out. Please try again.', code: 'timeout', retryable: true },
      ],
    ]);
    expect(sink.isFinished).toBe(true);
  });

  it('emits nothing to a disconnected socket but still ends', () => {
    const { socket, sent } = fakeSocket();
    (socket as { connected: boolean }).connected = false;
    const sink = new SocketRunSink(socket, 1, new TokenFlushScheduler(10), 1000);
    sink.thread('ai_t');
    sink.token('x');
    sink.complete(message('x'));
    jest.advanceTimersByTime(20);
    expect(sent).toEqual([]);
    expect(sink.isFinished).toBe(true);
    expect(sink.threadId).toBe('ai_t');
  });

  it('numbers and logs every event, also while its socket is disconnected, and makes itself the latest once leased', () => {
    const { socket, sent } = fakeSocket();
    const logged: LoggedRunEvent[] = [];
    const latest: string[] = [];
    const log: RunEventWriter = {
      append: (event) => logged.push(event),
      markLatest: (threadId) => latest.push(threadId),
    };
    const sink = new SocketRunSink(socket, 3, new TokenFlushScheduler(10), 1000, log);
    sink.thread('ai_t');
    sink.leased('ai_t');
    sink.token('Hel');
    jest.advanceTimersByTime(10);
    (socket as { connected: boolean }).connected = false;
    sink.token('lo');
    sink.toolStart('c1', 'search_nodes');
    sink.complete(message('Hello'));
    expect(latest).toEqual(['ai_t']);
    expect(logged).toEqual([
      { seq: 1, event: 'ai:thread', payload: { threadId: 'ai_t' } },
      { seq: 2, event: 'ai:token', payload: { token: 'Hel' } },
      { seq: 3, event: 'ai:token', payload: { token: 'lo' } },
      { seq: 4, event: 'ai:tool_start', payload: { toolCallId: 'c1', toolName: 'search_nodes' } },
      { seq: 5, event: 'ai:complete', payload: { threadId: 'ai_t', fullText: 'Hello', usage } },
    ]);
    expect(sent.map(([, payload]) => (payload as { seq: number }).seq)).toEqual([1, 2]);
  });

  it('numbers and logs the thread events and the actions handed to the client like any other event', () => {
    const { socket, sent } = fakeSocket();
    const logged: LoggedRunEvent[] = [];
    const sink = new SocketRunSink(socket, 7, new TokenFlushScheduler(10), 1000, {
      append: (event) => logged.push(event),
      markLatest: () => undefined,
    });
    sink.thread('ai_t');
    const event = { type: 'DATA_ADDED' as const, summary: 'Loaded 3 nodes', results: [] };
    sink.event(event);
    const preview = {
      instructions: [],
      nodesToCreate: [],
      edgesToCreate: [],
      nodeKeysToDelete: [],
      edgeKeysToDelete: [],
      sheetId: '0',
    };
    const proposedAction = { type: 'delete_node' as const, payload: { nodeKey: 'n1' }, reason: 'unused' };
    sink.apply({ toolCallId: 'c1', proposedAction, preview } as never);
    expect(sent.slice(1)).toEqual([
      ['ai:event', { _id: 7, seq: 2, threadId: 'ai_t', event }],
      ['ai:apply', { _id: 7, seq: 3, threadId: 'ai_t', toolCallId: 'c1', proposedAction, preview }],
    ]);
    expect(logged.map((entry) => [entry.seq, entry.event])).toEqual([
      [1, 'ai:thread'],
      [2, 'ai:event'],
      [3, 'ai:apply'],
    ]);
  });
});
