import { AgentHarness, RecordingSink } from '../../../test/support/agent.harness';
import { ScriptedLlmServer } from '../../../test/support/scripted-llm-server';
import { Principal } from '../../auth/principal';
import { LlmProvider } from '../../providers/llm-provider';
import { QuestionRun } from './question.run';
import { DEFAULT_RUN_SETUP_SLOTS } from './run-setup.gate';

const GRAPH = 'nba-workflow';
const editor: Principal = { userId: 'alice', workspace: 'default', role: 'editor' };
const BURST = 4 * DEFAULT_RUN_SETUP_SLOTS;
const signal = () => new AbortController().signal;

/** Turns of the event loop (check phases) since start(), counted by a self-rescheduling setImmediate. */
class TurnCounter {
  turns = 0;
  private running = false;

  start(): void {
    this.running = true;
    const tick = () => {
      if (!this.running) return;
      this.turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
  }

  stop(): void {
    this.running = false;
  }
}

/**
 * Many runs started in the same turn (as the gateway starts the `ai:chat` packets read in one poll
 * phase): with a synchronous store and a warm retrieval cache, their setups must not run back to
 * back in one chain of resolved promises, starving timers, sockets and streams.
 */
describe(`${QuestionRun.name} under a burst`, () => {
  let server: ScriptedLlmServer;
  let harness: AgentHarness;
  /** What happened, in order: 'upstream' when a run calls the provider, plus the test's own markers. */
  let timeline: string[];
  let counter: TurnCounter;
  /** Turn of the event loop at each upstream call. */
  let upstreamTurns: number[];

  beforeAll(async () => {
    server = await ScriptedLlmServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(async () => {
    server.reset();
    timeline = [];
    upstreamTurns = [];
    counter = new TurnCounter();
    harness = await AgentHarness.create({
      env: server.providerEnv('openai'),
      wrapProvider: (provider): LlmProvider => ({
        providerName: provider.providerName,
        model: provider.model,
        offline: provider.offline,
        complete: (...args) => provider.complete(...args),
        stream: (...args) => {
          timeline.push('upstream');
          upstreamTurns.push(counter.turns);
          return provider.stream(...args);
        },
      }),
    });
    // Warm: retrieval cache, JIT, prepared statements (the burst then only hits caches).
    server.enqueue({ text: 'warm' });
    await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'What does fetch-api do?' },
      new RecordingSink(),
      signal(),
    );
    timeline.length = 0;
    upstreamTurns.length = 0;
  });
  afterEach(async () => {
    counter.stop();
    await harness.close();
  });

  it('lets an immediate scheduled before the burst run before the last run calls upstream, and spreads the setups over turns', async () => {
    for (let index = 0; index < BURST; index++) server.enqueue({ text: `answer ${index}` });
    setImmediate(() => timeline.push('immediate'));
    counter.start();
    const sinks = Array.from({ length: BURST }, () => new RecordingSink());
    const results = await Promise.all(
      sinks.map((sink) =>
        harness.agent.chat(editor, { graphKey: GRAPH, message: 'What does fetch-api do?' }, sink, signal()),
      ),
    );

    expect(timeline.filter((entry) => entry === 'upstream')).toHaveLength(BURST);
    expect(timeline.indexOf('immediate')).toBeGreaterThanOrEqual(0);
    expect(timeline.indexOf('immediate')).toBeLessThan(timeline.lastIndexOf('upstream'));
    // At most one slot's worth of runs reach upstream per turn; the burst takes several turns.
    const perTurn = new Map<number, number>();
    for (const turn of upstreamTurns) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(DEFAULT_RUN_SETUP_SLOTS);
    expect(upstreamTurns.at(-1)! - upstreamTurns[0]).toBeGreaterThanOrEqual(BURST / DEFAULT_RUN_SETUP_SLOTS - 1);

    // The contract of every run is kept: thread first, exactly one complete, its own thread.
    for (const [index, sink] of sinks.entries()) {
      expect(sink.types[0]).toBe('thread');
      expect(sink.types.filter((type) => type === 'complete')).toHaveLength(1);
      expect(sink.types.at(-1)).toBe('complete');
      expect(sink.completed).toEqual(results[index]);
    }
    expect(new Set(results.map((result) => result.threadId)).size).toBe(BURST);
    expect(results.map((result) => result.message).sort()).toEqual(
      Array.from({ length: BURST }, (_, index) => `answer ${index}`).sort(),
    );
  });

  it('starts the first runs upstream before the last ones are set up (first come, first served)', async () => {
    for (let index = 0; index < BURST; index++) server.enqueue({ text: `answer ${index}` });
    const order: string[] = [];
    const runs = Array.from({ length: BURST }, (_, index) => {
      const sink = new RecordingSink();
      const thread = sink.thread.bind(sink);
      sink.thread = (threadId: string) => {
        order.push(`thread ${index}`);
        thread(threadId);
      };
      return harness.agent.chat(editor, { graphKey: GRAPH, message: 'What does fetch-api do?' }, sink, signal());
    });
    const firstUpstream = new Promise<number>((resolve) => {
      const poll = () => (timeline.includes('upstream') ? resolve(order.length) : setImmediate(poll));
      poll();
    });
    await Promise.all(runs);
    expect(order.slice(0, DEFAULT_RUN_SETUP_SLOTS)).toEqual(
      Array.from({ length: DEFAULT_RUN_SETUP_SLOTS }, (_, index) => `thread ${index}`),
    );
    expect(order).toEqual([...order].sort((a, b) => Number(a.split(' ')[1]) - Number(b.split(' ')[1])));
    expect(await firstUpstream).toBeLessThan(BURST);
  });

  it('gives the setup slot back when a run fails before its lease: more failures than slots, then a run still goes through', async () => {
    const failing = Array.from({ length: 2 * DEFAULT_RUN_SETUP_SLOTS }, (_, index) =>
      index % 2 === 0
        ? harness.agent.chat(editor, { graphKey: 'no-such-graph', message: 'hello' }, new RecordingSink(), signal())
        : harness.agent.chat(
            editor,
            { graphKey: GRAPH, message: 'hello', threadId: 'ai_unknown0000000000000000' },
            new RecordingSink(),
            signal(),
          ),
    );
    const outcomes = await Promise.allSettled(failing);
    expect(
      outcomes.map((outcome) =>
        outcome.status === 'rejected' ? (outcome.reason as { code: string }).code : 'resolved',
      ),
    ).toEqual(Array.from({ length: 2 * DEFAULT_RUN_SETUP_SLOTS }, () => 'not_found'));
    server.enqueue({ text: 'still served' });
    const result = await harness.agent.chat(
      editor,
      { graphKey: GRAPH, message: 'hello' },
      new RecordingSink(),
      signal(),
    );
    expect(result.message).toBe('still served');
  });

  it('gives the setup slot back when a run fails under its lease (budget spent): every run of a burst larger than the slots ends', async () => {
    await harness.close();
    harness = await AgentHarness.create({
      env: { ...server.providerEnv('openai'), AI_MAX_TOTAL_TOKENS: '1000' },
    });
    server.enqueue({ text: 'expensive', usage: { prompt: 1500, completion: 10 } });
    await harness.agent.chat(editor, { graphKey: GRAPH, message: 'first' }, new RecordingSink(), signal());
    const outcomes = await Promise.allSettled(
      Array.from({ length: 2 * DEFAULT_RUN_SETUP_SLOTS }, () =>
        harness.agent.chat(editor, { graphKey: GRAPH, message: 'again' }, new RecordingSink(), signal()),
      ),
    );
    expect(
      outcomes.map((outcome) =>
        outcome.status === 'rejected' ? (outcome.reason as { code: string }).code : 'resolved',
      ),
    ).toEqual(Array.from({ length: 2 * DEFAULT_RUN_SETUP_SLOTS }, () => 'budget_exceeded'));
    expect(server.requests).toHaveLength(2);
  });
});
