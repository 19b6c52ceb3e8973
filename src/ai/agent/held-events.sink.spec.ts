import { RecordingSink } from '../../../test/support/agent.harness';
import type { ThreadEvent } from '../../conversation/thread-event';
import { HeldEventsSink } from './held-events.sink';

describe(HeldEventsSink.name, () => {
  const dataAdded = (): ThreadEvent => ({
    type: 'DATA_ADDED',
    summary: 'Loaded 2 nodes and 1 edge into the context',
    results: [],
  });

  it('holds the thread and its event until released, then sends them in order', () => {
    const target = new RecordingSink();
    const held = new HeldEventsSink(target);
    held.thread('ai_1');
    held.event(dataAdded());
    expect(target.types).toEqual([]);
    held.release();
    held.release();
    expect(target.types).toEqual(['thread', 'event']);
    held.event(dataAdded());
    expect(target.types).toEqual(['thread', 'event', 'event']);
  });

  it.each([
    ['token', (sink: HeldEventsSink) => sink.token('Hi')],
    ['tool_start', (sink: HeldEventsSink) => sink.toolStart('t1', 'search_nodes')],
    ['tool_result', (sink: HeldEventsSink) => sink.toolResult('t1', '{}')],
    [
      'complete',
      (sink: HeldEventsSink) =>
        sink.complete({
          threadId: 'ai_1',
          type: 'message',
          message: 'Hi',
          toolCalls: [],
          usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0, totalTokens: 0, costUsd: 0, llmCalls: 0 },
        }),
    ],
  ])('sends what it holds before a %s', (_name, send) => {
    const target = new RecordingSink();
    const held = new HeldEventsSink(target);
    held.thread('ai_1');
    held.event(dataAdded());
    send(held);
    expect(target.types.slice(0, 2)).toEqual(['thread', 'event']);
    expect(target.types).toHaveLength(3);
  });
});
