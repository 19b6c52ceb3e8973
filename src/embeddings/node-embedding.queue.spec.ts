import { resetLogSink, setLogSink } from '../observability/logger';
import { LogEntry } from '../observability/log-entry';
import { EmbedGraphOptions, GraphNodeEmbedder, NodeSelection } from './graph-node.embedder';
import { emptyEmbeddingRunReport, EmbeddingRunReport } from './embedding-run.report';
import { NodeEmbeddingQueue } from './node-embedding.queue';

interface Call {
  workspace: string;
  graphKey: string;
  selection: NodeSelection;
  signal?: AbortSignal;
  finish: () => void;
}

/** An embedder whose runs end when the test says so. */
class ControlledEmbedder {
  readonly provider = { modelName: 'test-model' };
  readonly calls: Call[] = [];
  failWith: Error | null = null;
  /** Vectors each run stores, per node looked at. */
  embedsPerNode = 0;

  async embedGraph(
    workspace: string,
    graphKey: string,
    selection: NodeSelection,
    options: EmbedGraphOptions = {},
  ): Promise<EmbeddingRunReport> {
    if (this.failWith) throw this.failWith;
    await new Promise<void>((resolve) => {
      this.calls.push({ workspace, graphKey, selection, signal: options.signal, finish: resolve });
      options.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    const processed = selection === 'all' ? 10 : selection.length;
    return { ...emptyEmbeddingRunReport(), processed, embedded: processed * this.embedsPerNode };
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe(NodeEmbeddingQueue.name, () => {
  const logs: LogEntry[] = [];
  beforeAll(() => setLogSink((entry) => logs.push(entry)));
  afterAll(() => resetLogSink());
  beforeEach(() => (logs.length = 0));

  function queueWith(embedder: ControlledEmbedder, options = {}): NodeEmbeddingQueue {
    return new NodeEmbeddingQueue(embedder as unknown as GraphNodeEmbedder, options);
  }

  it('coalesces changes of a graph while it waits, and never runs one graph twice at once', async () => {
    const embedder = new ControlledEmbedder();
    const queue = queueWith(embedder, { maxConcurrentGraphs: 2 });
    queue.enqueue('ws', 'g', ['a']);
    await tick();
    queue.enqueue('ws', 'g', ['b']);
    queue.enqueue('ws', 'g', ['c', 'b']);
    await tick();
    expect(embedder.calls.map((call) => call.selection)).toEqual([['a']]);
    expect(queue.size).toEqual({ pending: 1, running: 1 });

    embedder.calls[0].finish();
    await tick();
    expect(embedder.calls.map((call) => call.selection)).toEqual([['a'], ['b', 'c']]);
    embedder.calls[1].finish();
    await queue.whenIdle();
    expect(logs.filter((entry) => entry.event === 'embedding_run').map((entry) => entry.processed)).toEqual([1, 2]);
  });

  it('runs different graphs side by side up to maxConcurrentGraphs', async () => {
    const embedder = new ControlledEmbedder();
    const queue = queueWith(embedder, { maxConcurrentGraphs: 2 });
    for (const graph of ['g1', 'g2', 'g3']) queue.enqueue('ws', graph, 'all');
    await tick();
    expect(embedder.calls.map((call) => call.graphKey)).toEqual(['g1', 'g2']);
    embedder.calls[0].finish();
    await tick();
    expect(embedder.calls.map((call) => call.graphKey)).toEqual(['g1', 'g2', 'g3']);
    embedder.calls.forEach((call) => call.finish());
    await queue.whenIdle();
  });

  it('bounds memory: too many pending keys turn into the whole graph; empty changes are ignored', async () => {
    const embedder = new ControlledEmbedder();
    const queue = queueWith(embedder, { maxConcurrentGraphs: 1, maxPendingKeysPerGraph: 3 });
    queue.enqueue('ws', 'busy', 'all');
    queue.enqueue('ws', 'g', []);
    queue.enqueue('ws', 'g', ['a', 'b']);
    queue.enqueue('ws', 'g', ['c', 'd']);
    await tick();
    embedder.calls[0].finish();
    await tick();
    expect(embedder.calls[1]).toMatchObject({ graphKey: 'g', selection: 'all' });
    embedder.calls[1].finish();
    await queue.whenIdle();
  });

  it('tells its listeners after each run that stored vectors, once the run is over', async () => {
    const embedder = new ControlledEmbedder();
    const queue = queueWith(embedder);
    const embedded: string[] = [];
    const unsubscribe = queue.onGraphEmbedded((workspace, graphKey) => embedded.push(`${workspace}/${graphKey}`));

    queue.enqueue('ws', 'unchanged', ['a']);
    await tick();
    embedder.calls[0].finish();
    await queue.whenIdle();
    expect(embedded).toEqual([]);

    embedder.embedsPerNode = 1;
    queue.enqueue('ws', 'g', ['a', 'b']);
    await tick();
    expect(embedded).toEqual([]);
    embedder.calls[1].finish();
    await queue.whenIdle();
    expect(embedded).toEqual(['ws/g']);

    unsubscribe();
    queue.enqueue('ws', 'g', ['c']);
    await tick();
    embedder.calls[2].finish();
    await queue.whenIdle();
    expect(embedded).toEqual(['ws/g']);
  });

  it('logs a failed run and goes on with the next graph', async () => {
    const embedder = new ControlledEmbedder();
    embedder.failWith = new Error('store down');
    const queue = queueWith(embedder);
    queue.enqueue('ws', 'g1', ['a']);
    await queue.whenIdle();
    expect(logs.find((entry) => entry.event === 'embedding_run_failed')).toMatchObject({
      graphKey: 'g1',
      error: 'Error: store down',
    });
    embedder.failWith = null;
    queue.enqueue('ws', 'g2', ['a']);
    await tick();
    expect(embedder.calls.map((call) => call.graphKey)).toEqual(['g2']);
    embedder.calls[0].finish();
    await queue.whenIdle();
  });

  it('on shutdown drops pending work, lets a run finish within the timeout, and ignores new work', async () => {
    const embedder = new ControlledEmbedder();
    const queue = queueWith(embedder, { maxConcurrentGraphs: 1 });
    queue.enqueue('ws', 'g1', 'all');
    queue.enqueue('ws', 'g2', 'all');
    await tick();
    const closing = queue.shutdown(5_000);
    queue.enqueue('ws', 'g3', 'all');
    embedder.calls[0].finish();
    await closing;
    expect(embedder.calls.map((call) => call.graphKey)).toEqual(['g1']);
    expect(embedder.calls[0].signal?.aborted).toBe(false);
    expect(logs.some((entry) => entry.event === 'embedding_queue_dropped')).toBe(true);
  });

  it('on shutdown aborts a run that outlives the timeout', async () => {
    const embedder = new ControlledEmbedder();
    const queue = queueWith(embedder);
    queue.enqueue('ws', 'g', 'all');
    await tick();
    await queue.shutdown(10);
    expect(embedder.calls[0].signal?.aborted).toBe(true);
    expect(logs.some((entry) => entry.event === 'embedding_queue_aborted')).toBe(true);
  });
});
