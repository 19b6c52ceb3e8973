import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import type { AgentResult, UsageReport } from '../agent/agent-result';
import { TokenFlushScheduler } from '../socket/token-flush.scheduler';
import { UiMessageStreamSink } from './ui-message-stream.sink';

const usage: UsageReport = {
  promptTokens: 10,
  completionTokens: 5,
  cachedTokens: 0,
  totalTokens: 15,
  costUsd: 0.001,
  llmCalls: 1,
};

const message = (extra: Partial<AgentResult> = {}): AgentResult =>
  ({ threadId: 'ai_t', type: 'message', message: 'unused', toolCalls: [], usage, ...extra }) as AgentResult;

function sinkWriting(maxChars = 4096): { sink: UiMessageStreamSink; chunks: UIMessageChunk[] } {
  const chunks: UIMessageChunk[] = [];
  const sink = new UiMessageStreamSink((chunk) => chunks.push(chunk), {
    scheduler: new TokenFlushScheduler(10),
    maxChars,
  });
  return { sink, chunks };
}

/** The assistant message the AI SDK's own reader assembles from the chunks (it throws on an invalid sequence). */
async function assembled(chunks: UIMessageChunk[]): Promise<UIMessage | undefined> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, terminateOnError: true })) last = snapshot;
  return last;
}

describe(UiMessageStreamSink.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('coalesces the fragments of one flush window into one text-delta', () => {
    const { sink, chunks } = sinkWriting();
    sink.thread('ai_t');
    sink.token('Hel');
    sink.token('lo');
    expect(chunks.map((chunk) => chunk.type)).toEqual(['start', 'text-start']);
    jest.advanceTimersByTime(10);
    sink.token(' world');
    jest.advanceTimersByTime(10);
    expect(chunks.slice(1)).toEqual([
      { type: 'text-start', id: 'text-1' },
      { type: 'text-delta', id: 'text-1', delta: 'Hello' },
      { type: 'text-delta', id: 'text-1', delta: ' world' },
    ]);
    expect(sink.tokensStreamed).toBe(3);
  });

  it('sends a delta at once when the buffer reaches its limit', () => {
    const { sink, chunks } = sinkWriting(5);
    sink.thread('ai_t');
    sink.token('abc');
    sink.token('def');
    expect(chunks.at(-1)).toEqual({ type: 'text-delta', id: 'text-1', delta: 'abcdef' });
    expect(jest.getTimerCount()).toBe(0);
  });

  it('flushes the text before a tool part and at the finish, in a stream the AI SDK reads back whole', async () => {
    const { sink, chunks } = sinkWriting();
    sink.thread('ai_t');
    sink.token('Let me ');
    sink.token('look.');
    sink.toolStart('call_1', 'read_node_detail', '{"nodeKey":"root"}');
    sink.toolResult('call_1', '{"_key":"root"}');
    sink.token('It is ');
    sink.token('the root.');
    sink.complete(message());
    expect(chunks.map((chunk) => chunk.type)).toEqual([
      'start',
      'text-start',
      'text-delta',
      'text-end',
      'tool-input-available',
      'tool-output-available',
      'text-start',
      'text-delta',
      'text-end',
      'finish',
    ]);
    jest.advanceTimersByTime(20);
    expect(chunks.at(-1)?.type).toBe('finish');
    jest.useRealTimers();
    const answer = await assembled(chunks);
    expect(answer?.parts.filter((part) => part.type === 'text').map((part) => part.text)).toEqual([
      'Let me look.',
      'It is the root.',
    ]);
  });

  it('flushes the text before the abort part', () => {
    const { sink, chunks } = sinkWriting();
    sink.thread('ai_t');
    sink.token('Partial');
    sink.complete(message({ aborted: true }));
    expect(chunks.slice(1)).toEqual([
      { type: 'text-start', id: 'text-1' },
      { type: 'text-delta', id: 'text-1', delta: 'Partial' },
      { type: 'text-end', id: 'text-1' },
      { type: 'abort', reason: 'stopped' },
    ]);
  });

  it('sends the buffered text and ends its part when the run threw (endText), leaving no flush behind', () => {
    const { sink, chunks } = sinkWriting();
    sink.thread('ai_t');
    sink.token('Before the failure');
    sink.endText();
    expect(chunks.slice(1).map((chunk) => chunk.type)).toEqual(['text-start', 'text-delta', 'text-end']);
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(20);
    expect(chunks).toHaveLength(4);
  });
});
